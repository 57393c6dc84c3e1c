import pg from 'pg'
import { afterAll, describe, expect, it } from 'vitest'
import { scriptAppendixProfile } from '../../fixtures/script-appendix/profile.js'
import { APPENDIX_INSTRUCTIONS } from '../../fixtures/script-appendix/task.js'
import { postgresStore } from '../../src/index.js'
import { createSessionHost, postgresSignals, type SessionNews } from '../../src/session/index.js'
import { uploadSeason } from '../session/harness.js'
import { describeDurability } from '../session/durability.js'
import { describeIntent } from '../session/intent.js'
import { describeLifecycle } from '../session/lifecycle.js'
import { describeFileEvents } from '../session/file-events.js'

// CI always provides a server; a missing one is a failure, never a silent skip.
const url = process.env.PG_URL
if (!url) throw new Error('PG_URL is not set: run `scripts/postgres.sh start` and export the PG_URL it prints (npm test does both)')
const pool = new pg.Pool({ connectionString: url, max: 8 })
// The host as npm run serve runs it on Postgres: plain reads on a second pool (postgresStore's `reads`).
const readPool = new pg.Pool({ connectionString: url, max: 3 })
afterAll(() => Promise.all([pool.end(), readPool.end()]))
const store = async () => {
  const s = postgresStore({ client: pool })
  await s.migrate()
  return s
}
const storeWithReads = async () => {
  const s = postgresStore({ client: pool, reads: readPool })
  await s.migrate()
  return s
}

describe('session host on Postgres', () => {
  describeLifecycle(store)
  describeDurability(store)
  describeIntent(store)
  describeFileEvents(store)
})

describe('session host on Postgres, reads on a second pool', () => {
  describeLifecycle(storeWithReads)
  describeDurability(storeWithReads)
  describeIntent(storeWithReads)
})

describe('session hosts on Postgres with LISTEN/NOTIFY', () => {
  it("an observer on one host hears the other host's run through NOTIFY, not polling", async () => {
    const listeners = [new pg.Client({ connectionString: url }), new pg.Client({ connectionString: url })]
    await Promise.all(listeners.map(c => c.connect()))
    try {
      const s = await store()
      const namespace = `n${Math.random().toString(36).slice(2)}`
      const agents = { appendix: scriptAppendixProfile() }
      // Polling every minute: within the test's time, only a notification can wake the observer.
      const [a, b] = await Promise.all(
        listeners.map(async listen =>
          createSessionHost({
            store: s,
            agents,
            namespace,
            pollMs: 60_000,
            signals: await postgresSignals({ listen }),
          }),
        ),
      )
      const session = await a.create({ owner: 'o', profile: 'appendix' })
      await uploadSeason(a, session.id)
      const seen: number[] = []
      const watching = (async () => {
        for await (const e of b.observe(session.id, { heartbeatMs: 0 })) {
          if (e.type === 'heartbeat') continue
          seen.push(e.seq)
          if (e.type === 'execution-end') return
        }
      })()
      await a.send(session.id, { text: APPENDIX_INSTRUCTIONS })
      await watching
      expect(seen).toEqual(seen.map((_, i) => i + 1))
      expect(seen.length).toBeGreaterThan(20)
      await Promise.all([a.stop(), b.stop()])
    } finally {
      await Promise.all(listeners.map(c => c.end()))
    }
  })

  it('NOTIFY leaves on the listening connection: its sender hears its own publication once, with its news; the other listener once, bare', async () => {
    const [mine, theirs] = [new pg.Client({ connectionString: url }), new pg.Client({ connectionString: url })]
    await Promise.all([mine.connect(), theirs.connect()])
    try {
      const channel = `t${Math.random().toString(36).slice(2, 10)}`
      const [a, b] = await Promise.all([postgresSignals({ listen: mine, channel }), postgresSignals({ listen: theirs, channel })])
      const heardA: unknown[] = []
      const heardB: unknown[] = []
      a.subscribe('s1', news => heardA.push(news))
      const reached = new Promise<void>(resolve => b.subscribe('s1', news => (heardB.push(news), resolve())))
      const news: SessionNews = { last: 3, lines: [{ seq: 3, type: 'status', json: '{"seq":3}' }] }
      a.publish('s1', news)
      await reached
      // Queries on one connection run in turn: once this answers, the NOTIFY before it is done and its echo has come back.
      await mine.query('SELECT 1')
      expect(heardA).toEqual([news])
      // The other process gets a bare wake (its tail reads).
      expect(heardB).toEqual([undefined])
      await Promise.all([a.close?.(), b.close?.()])
    } finally {
      await Promise.all([mine.end(), theirs.end()])
    }
  })
})
