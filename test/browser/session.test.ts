import { describe, expect, it } from 'vitest'
import { APPENDIX_INSTRUCTIONS } from '../../fixtures/script-appendix/task.js'
import { scriptAppendixProfile } from '../../fixtures/script-appendix/profile.js'
import { indexedDbStore } from '../../src/index.js'
import { createSessionHost } from '../../src/session/index.js'
import { describeDurability } from '../session/durability.js'
import { describeLifecycle } from '../session/lifecycle.js'
import { expectContiguous, until, uploadSeason } from '../session/harness.js'

// The session host in Chromium on IndexedDB: the same suites as in Node, with real run_js.
describe('session host in chromium on IndexedDB', () => {
  const store = indexedDbStore({ dbName: `agent-vfs-test-session-${crypto.randomUUID()}` })
  describeLifecycle(async () => store)
  describeDurability(async () => store)

  it('two tabs (two stores on one database): an observer in one sees the run of the other through BroadcastChannel', async () => {
    const dbName = `agent-vfs-test-tabs-${crypto.randomUUID()}`
    const agents = { appendix: scriptAppendixProfile() }
    // A long poll interval: the events must come through the store's notifications, not polling.
    const tabA = createSessionHost({ store: indexedDbStore({ dbName }), agents, pollMs: 60_000 })
    const tabB = createSessionHost({ store: indexedDbStore({ dbName }), agents, pollMs: 60_000 })
    const s = await tabA.create({ owner: 'o', profile: 'appendix' })
    await uploadSeason(tabA, s.id)
    const seen: number[] = []
    const watching = (async () => {
      for await (const e of tabB.observe(s.id, { heartbeatMs: 0 })) {
        if (e.type === 'heartbeat') continue
        seen.push(e.seq)
        if (e.type === 'execution-end') return
      }
    })()
    await tabA.send(s.id, { text: APPENDIX_INSTRUCTIONS })
    await watching
    await until(tabA, s.id, ['idle'])
    expect(seen).toEqual(seen.map((_, i) => i + 1))
    expectContiguous(await tabA.events(s.id))
  })
})

describe('observe across tabs over a segment boundary', () => {
  it('keeps hearing the other tab after the log starts a new segment', async () => {
    const { EventLog } = await import('../../src/session/records/event-log.js')
    const { SEGMENT_EVENTS } = await import('../../src/session/index.js')
    const dbName = `agent-vfs-test-roll-${crypto.randomUUID()}`
    const agents = { appendix: scriptAppendixProfile() }
    const storeA = indexedDbStore({ dbName })
    const tabA = createSessionHost({ store: storeA, agents, pollMs: 60_000, namespace: 'roll' })
    const tabB = createSessionHost({ store: indexedDbStore({ dbName }), agents, pollMs: 60_000, namespace: 'roll' })
    const s = await tabA.create({ owner: 'o', profile: 'appendix' })
    const log = new EventLog(storeA, 'roll', s.id, () => {})
    const total = 2 * SEGMENT_EVENTS + 30
    const seen: number[] = []
    const watching = (async () => {
      for await (const e of tabB.observe(s.id, { heartbeatMs: 0 })) {
        if (e.type === 'heartbeat') continue
        seen.push(e.seq)
        if (e.seq >= total) return
      }
    })()
    // Appended in bursts with pauses, so the observer is waiting (on notifications) when segments roll over.
    for (let i = 1; i < total; i += 50) {
      await Promise.all(Array.from({ length: Math.min(50, total - i) }, () => log.append({ type: 'status', status: 'running' })))
      await new Promise(r => setTimeout(r, 20))
    }
    await watching
    expect(seen).toEqual(seen.map((_, i) => i + 1))
  })
})
