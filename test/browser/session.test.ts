import { describe, expect, it } from 'vitest'
import { APPENDIX_INSTRUCTIONS } from '../../examples/script-appendix/task.js'
import { scriptAppendixProfile } from '../../examples/script-appendix/profile.js'
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
