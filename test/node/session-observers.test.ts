import { describe, expect, it } from 'vitest'
import { scriptAppendixProfile } from '../../fixtures/script-appendix/profile.js'
import { memoryStore, type VfsStore } from '../../src/index.js'
import { EventLog } from '../../src/session/records/event-log.js'
import { createSessionHost, localSignals, type SessionEvent, type SessionHost } from '../../src/session/index.js'
import { expectContiguous, uploadSeason, until } from '../session/harness.js'

/**
 * The real memory store, counting the round trips that load event segments (a load, or a
 * loadMany of several scopes at once, as Postgres answers it) and the commits into them.
 */
function countingStore(): { store: VfsStore; reads: () => number; commits: () => number } {
  const inner = memoryStore()
  let reads = 0
  let commits = 0
  const isEvents = (scope: string) => scope.startsWith('events/')
  const store: VfsStore = Object.assign(Object.create(inner) as VfsStore, {
    load: (ns: string, scope: string) => {
      if (isEvents(scope)) reads++
      return inner.load(ns, scope)
    },
    loadMany: (ns: string, scopes: readonly string[]) => {
      if (scopes.some(isEvents)) reads++
      return inner.loadMany ? inner.loadMany(ns, scopes) : Promise.all(scopes.map(scope => inner.load(ns, scope)))
    },
    commit: (ns: string, scope: string, ops: Parameters<VfsStore['commit']>[2]) => {
      if (isEvents(scope)) commits++
      return inner.commit(ns, scope, ops)
    },
  })
  return { store, reads: () => reads, commits: () => commits }
}

const agents = { appendix: scriptAppendixProfile() }

/** Collects an observer's events until the signal aborts or the session closes. */
async function collect(iterable: AsyncIterable<SessionEvent | { type: 'heartbeat' }>, into: SessionEvent[]): Promise<void> {
  for await (const e of iterable) if (e.type !== 'heartbeat') into.push(e as SessionEvent)
}

/** Waits (30 s at most) until every observer has reached `seq`. */
async function reach(seen: SessionEvent[][], seq: number): Promise<void> {
  const deadline = Date.now() + 30_000
  while (seen.some(e => (e.at(-1)?.seq ?? 0) < seq) && Date.now() < deadline) await new Promise(r => setTimeout(r, 20))
}

/** Runs the session's task to its end; every observer then has exactly 1…last. Resolves to last. */
async function runObserved(host: SessionHost, id: string, seen: SessionEvent[][]): Promise<number> {
  await host.send(id, { text: 'go' })
  await until(host, id, ['idle'])
  const last = (await host.events(id, { limit: 10_000 })).at(-1)!.seq
  // Every observer has everything (the tail hands out each batch after its durable commit).
  await reach(seen, last)
  for (const events of seen) expectContiguous(events)
  for (const events of seen) expect(events.at(-1)!.seq).toBe(last)
  return last
}

describe('observers share one tail per session', () => {
  it('N observers of a run: the log is read once per new batch plus one catch-up each, and idle observers read nothing', async () => {
    const counted = countingStore()
    // No poll in this test's time: every read is a wake (a commit) or a catch-up.
    const host = createSessionHost({ store: counted.store, agents, pollMs: 600_000, heartbeatMs: 0 })
    const s = await host.create({ owner: 'ana', profile: 'appendix' })
    await uploadSeason(host, s.id)
    const N = 40
    const stop = new AbortController()
    const seen = Array.from({ length: N }, () => [] as SessionEvent[])
    const readsBefore = counted.reads()
    const commitsBefore = counted.commits()
    const runs = seen.map(into => collect(host.observe(s.id, { signal: stop.signal }), into))
    await runObserved(host, s.id, seen)
    const reads = counted.reads() - readsBefore
    const commits = counted.commits() - commitsBefore
    // Reading per observer on every commit would cost N × commits.
    expect(commits).toBeGreaterThan(5)
    expect(reads).toBeLessThanOrEqual(commits + N + 5)
    // Idle: observers open, nothing appended, nothing read.
    const idleFrom = counted.reads()
    await new Promise(r => setTimeout(r, 500))
    expect(counted.reads() - idleFrom).toBe(0)
    stop.abort()
    await Promise.all(runs)
    await host.stop()
  })

  it('observers joining mid-run from any `after` get exactly after+1.. with no gap or duplicate at the seam', async () => {
    const host = createSessionHost({ store: memoryStore(), agents, pollMs: 600_000, heartbeatMs: 0 })
    const s = await host.create({ owner: 'ana', profile: 'appendix' })
    await uploadSeason(host, s.id)
    const stop = new AbortController()
    const joined: Array<{ after: number; events: SessionEvent[]; done: Promise<void> }> = []
    await host.send(s.id, { text: 'go' })
    // Join while events are being appended: each from a different point, some ahead of what is stored.
    for (let i = 0; i < 30; i++) {
      const stored = (await host.events(s.id, { limit: 10_000 })).length
      const after = [0, stored, Math.max(0, stored - 3), stored + 1][i % 4]
      const events: SessionEvent[] = []
      joined.push({ after, events, done: collect(host.observe(s.id, { after, signal: stop.signal }), events) })
      await new Promise(r => setTimeout(r, 15))
    }
    await until(host, s.id, ['idle'])
    const last = (await host.events(s.id, { limit: 10_000 })).at(-1)!.seq
    const deadline = Date.now() + 30_000
    while (joined.some(j => (j.events.at(-1)?.seq ?? j.after) < last) && Date.now() < deadline) await new Promise(r => setTimeout(r, 20))
    for (const j of joined) expect(j.events.map(e => e.seq)).toEqual(Array.from({ length: last - j.after }, (_, k) => j.after + 1 + k))
    stop.abort()
    await Promise.all(joined.map(j => j.done))
    await host.stop()
  })
})

describe("the host's own commits reach its tail without a read", () => {
  it('observers of a run get every event from the commits themselves: no read per commit once they are caught up', async () => {
    const counted = countingStore()
    const host = createSessionHost({ store: counted.store, agents, pollMs: 600_000, heartbeatMs: 0 })
    const s = await host.create({ owner: 'ana', profile: 'appendix' })
    await uploadSeason(host, s.id)
    const stop = new AbortController()
    const seen = Array.from({ length: 5 }, () => [] as SessionEvent[])
    const runs = seen.map(into => collect(host.observe(s.id, { signal: stop.signal }), into))
    const stored = (await host.events(s.id)).at(-1)!.seq
    await reach(seen, stored)
    const readsBefore = counted.reads()
    const commitsBefore = counted.commits()
    await runObserved(host, s.id, seen)
    const commits = counted.commits() - commitsBefore
    // The reads besides the host's own (the run's and the two host.events above) are none: a tail that read each commit back would add `commits`.
    // Enough commits for a read per commit to show (the run's writes group into 7 commits since one
    // write sets status and execution count and a write hashes only what it replaces; ~10 before, 27
    // when every file's hash was an asynchronous Web Crypto call).
    expect(commits).toBeGreaterThanOrEqual(6)
    expect(counted.reads() - readsBefore).toBeLessThan(commits / 2)
    stop.abort()
    await Promise.all(runs)
    await host.stop()
  })

  it('a writer the host does not know (no news) between its own commits: the tail reads the gap, observers miss nothing and get nothing twice', async () => {
    const store = memoryStore()
    const signals = localSignals()
    const host = createSessionHost({ store, agents, namespace: 'news', signals, pollMs: 600_000, heartbeatMs: 0 })
    const s = await host.create({ owner: 'ana', profile: 'appendix' })
    const stop = new AbortController()
    const seen: SessionEvent[] = []
    const run = collect(host.observe(s.id, { signal: stop.signal }), seen)
    // Another host's log of the same session: it signals without news (as a NOTIFY does), or not at all.
    const foreign = new EventLog(store, 'news', s.id, (_, lines) => lines[0].seq % 2 === 0 && signals.publish(s.id))
    // Between them the host's own commits (the files-changed event of an upload), which carry their lines.
    for (let i = 0; i < 12; i++) {
      if (i % 3 === 0) await foreign.append({ type: 'status', status: 'running' })
      else await host.writeFiles(s.id, [{ path: `/context/f${i}.md`, data: `file ${i}` }])
    }
    // The files-changed events of the uploads are logged after writeFiles returns: wait until the log stands still.
    let last = -1
    for (let before = -2; before !== last; await new Promise(r => setTimeout(r, 200))) {
      before = last
      last = (await host.events(s.id, { limit: 10_000 })).at(-1)!.seq
    }
    await reach([seen], last)
    expectContiguous(seen)
    expect(seen.at(-1)!.seq).toBe(last)
    stop.abort()
    await run
    await host.stop()
  })
})
