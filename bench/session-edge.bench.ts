/**
 * Sessions hosted by the Cloudflare Worker (`wrangler dev` on loopback, test/wrangler-dev/harness.ts)
 * against the Node host on PGlite (`createSessionHost` over `postgresStore({ client: pglite })`, the
 * same hono app on @hono/node-server), both driven through the public HTTP API by the same client:
 *
 * - `session.edge.append`: events/s appended durably inside one session (one Durable Object):
 *   `POST /sessions/:id/messages`, WINDOW requests in flight; each 202 is one `message` event
 *   made durable. The session's execution waits for an answer to its question (the
 *   `appendix-asking` profile), so the messages queue and append nothing else.
 * - `session.edge.append.20objects`: the same over 20 sessions at once (20 objects).
 * - `session.edge.catchup.1k`: ms from an SSE reconnect 1,000 events behind to the 1,000th event.
 * - `session.edge.lost`, `session.edge.duplicated`: every acknowledged message read back from both
 *   `GET /events` pages and an SSE replay from 0, on the edge; must be 0. Baseline: the events the
 *   reads had to find.
 *
 * - `session.edge.observers.lost`, `.duplicated`, `.run`: a scripted run in one session object with 200
 *   SSE streams open on it (SESSION_EDGE_OBSERVERS) vs the same run unobserved; every stream must get
 *   every event once.
 * - `session.edge.retries`: requests sent again because `wrangler dev` restarted the Worker under them
 *   (503 "Your worker restarted mid-request", a dropped connection, a stream cut short). Retried: GETs,
 *   PUTs, session creations, streams (resumed with Last-Event-ID), and a message only when its unique
 *   text is not in the log; baseline: requests sent.
 *
 * Ratios are edge / Node host, measured in the same run, ours and the baseline alternating.
 * Sizes: SESSION_EDGE_MESSAGES (1000 in one session; 20 sessions get a tenth each), WINDOW (8), SESSION_EDGE_ROUNDS (3).
 * Run: `node --import tsx bench/session-edge.bench.ts [filter]` (starts and stops its own wrangler).
 */
import { PGlite } from '@electric-sql/pglite'
import { postgresStore } from '../src/index.js'
import { createSessionApp, createSessionHost, mintToken } from '../src/session/index.js'
import { generateEpisodes } from '../fixtures/script-appendix/generator.js'
import { scriptAppendixProfile } from '../fixtures/script-appendix/profile.js'
import { listen, readSse } from '../test/session/http-client.js'
import { startWorker } from '../test/wrangler-dev/harness.js'
import { Results, size, smoke, wanted, wantedAny } from './harness.js'

const results = new Results('session.json')
const MESSAGES = Number(process.env.SESSION_EDGE_MESSAGES ?? size(1000, 12))
const WINDOW = Number(process.env.WINDOW ?? 8)
const OBJECTS = size(20, 3)
const PROFILE = 'appendix-asking'
const CATCHUP = size(1000, 10)

/** A session server reachable over loopback HTTP. */
interface Target {
  label: string
  url: string
  token: string
  /** A token for another owner: concurrent sessions of one owner would meet the per-owner quota of running executions. */
  tokenFor(owner: string): Promise<string>
  stop(): Promise<void>
}

async function nodeTarget(): Promise<Target> {
  const db = await PGlite.create()
  const store = postgresStore({ client: db })
  await store.migrate()
  const host = createSessionHost({
    store,
    agents: { [PROFILE]: scriptAppendixProfile({ askFirst: true, approveRunJs: true }) },
    pollMs: 200,
  })
  const secret = 'bench-secret-bench-secret-bench-secret-00'
  const server = await listen(createSessionApp(host, { auth: { secret }, heartbeatMs: 1000 }).fetch)
  return {
    label: 'Node host on PGlite',
    url: server.url,
    token: await mintToken(secret, 'bench'),
    tokenFor: owner => mintToken(secret, owner),
    async stop() {
      await host.stop()
      await server.close()
      await db.close()
    },
  }
}

async function edgeTarget(): Promise<Target> {
  const dev = await startWorker()
  return {
    label: 'wrangler dev',
    url: dev.url,
    token: await dev.token('bench'),
    tokenFor: owner => dev.token(owner),
    stop: () => dev.stop(),
  }
}

/** Requests answered 503 "Your worker restarted mid-request" (or dropped) by wrangler dev, and sent again. */
let retries = 0
let requests = 0

/** wrangler dev's answer when the Worker restarted under a non-GET request (GETs it retries itself). */
const restarted = (status: number, text: string) => status === 503 && /restarted mid-request/i.test(text)

/**
 * One request. A request the Worker's restart cut off is sent again when that is safe: GETs, PUTs
 * (idempotent), a session creation (at worst one unused session more), and a message only once the
 * log shows it was not stored (its text is unique); anything else fails the bench.
 */
async function call<T>(t: Target, method: string, path: string, body?: unknown, expect = 200): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    requests++
    let res: Response
    let text: string
    try {
      res = await fetch(`${t.url}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${t.token}`,
          ...(body === undefined ? {} : { 'content-type': typeof body === 'string' ? 'application/octet-stream' : 'application/json' }),
        },
        // A string is sent as it is (a file's bytes); anything else as JSON.
        ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
      })
      text = await res.text()
    } catch (error) {
      const next = attempt < 5 ? await afterCutOff(t, method, path, body) : 'fail'
      if (next === 'fail') throw error
      retries++
      if (next === 'stored') return undefined as T
      continue
    }
    if (res.status !== expect && restarted(res.status, text) && attempt < 5) {
      const next = await afterCutOff(t, method, path, body)
      if (next !== 'fail') {
        retries++
        if (next === 'stored') return undefined as T
        await new Promise(r => setTimeout(r, 200 * (attempt + 1)))
        continue
      }
    }
    if (res.status !== expect)
      throw new Error(`${t.label}: ${method} ${path} answered ${res.status}, wanted ${expect}: ${text.slice(0, 500)}`)
    return JSON.parse(text) as T
  }
}

/** What to do with a request the restart cut off: send it again, count it done (a message the log holds), or fail. */
async function afterCutOff(t: Target, method: string, path: string, body: unknown): Promise<'retry' | 'stored' | 'fail'> {
  if (method === 'GET' || method === 'PUT' || (method === 'POST' && path === '/sessions')) return 'retry'
  const message = /^\/sessions\/([^/]+)\/messages$/.exec(path)
  if (method !== 'POST' || !message) return 'fail'
  const text = (body as { text: string }).text
  // Stored or not: the log says (give the restarted Worker a moment first).
  await new Promise(r => setTimeout(r, 200))
  const events = await readAll(t, message[1])
  return events.some(e => e.type === 'message' && e.text === text) ? 'stored' : 'retry'
}

/** A session whose execution has asked its question and waits: later messages only queue. */
async function waitingSession(t: Target): Promise<string> {
  const { id } = await call<{ id: string }>(t, 'POST', '/sessions', { profile: PROFILE, title: 'bench' }, 201)
  await call(t, 'POST', `/sessions/${id}/messages`, { text: 'Write the appendix' }, 202)
  const until = Date.now() + 60_000
  for (;;) {
    const s = await call<{ status: string }>(t, 'GET', `/sessions/${id}`)
    if (s.status === 'waiting_input') return id
    if (Date.now() > until) throw new Error(`${t.label}: session ${id} is ${s.status}, not waiting for its answer`)
    await new Promise(r => setTimeout(r, 50))
  }
}

/** Sends `count` messages `tag-<i>` to the session, `WINDOW` at a time; resolves when every one is acknowledged. */
async function sendMessages(t: Target, id: string, tag: string, count: number): Promise<void> {
  let next = 0
  await Promise.all(
    Array.from({ length: Math.min(WINDOW, count) }, async () => {
      while (next < count) {
        const i = next++
        await call(t, 'POST', `/sessions/${id}/messages`, { text: `${tag}-${i}` }, 202)
      }
    }),
  )
}

/** events/s of `count` messages into each of `sessions` waiting sessions; returns the rate and what was sent. */
async function appendRate(
  t: Target,
  sessions: number,
  count: number,
  tag: string,
): Promise<{ rate: number; sent: Array<{ id: string; tag: string; count: number; target: Target }> }> {
  // One owner per session: what is measured is many objects appending, not one owner's quota.
  const owners =
    sessions === 1
      ? [t]
      : await Promise.all(Array.from({ length: sessions }, async (_, s) => ({ ...t, token: await t.tokenFor(`bench-${tag}-${s}`) })))
  const ids = await Promise.all(owners.map(o => waitingSession(o)))
  const t0 = performance.now()
  await Promise.all(ids.map((id, s) => sendMessages(owners[s], id, `${tag}-s${s}`, count)))
  const rate = (sessions * count) / ((performance.now() - t0) / 1000)
  return { rate, sent: ids.map((id, s) => ({ id, tag: `${tag}-s${s}`, count, target: owners[s] })) }
}

interface Stored {
  seq: number
  type: string
  text?: string
}

/** Every stored event of a session, through `GET /events` pages of 1,000. */
async function readAll(t: Target, id: string): Promise<Stored[]> {
  const out: Stored[] = []
  for (let after = 0; ;) {
    const { events } = await call<{ events: Stored[] }>(t, 'GET', `/sessions/${id}/events?after=${after}&limit=1000`)
    out.push(...events)
    if (events.length < 1000) return out
    after = events[events.length - 1].seq
  }
}

/**
 * The session's events as an SSE stream replays them from `after` up to `last`. A stream the
 * Worker's restart cut off is resumed from the last event received (Last-Event-ID), and counted.
 */
async function streamed(t: Target, id: string, after: number, last: number): Promise<Stored[]> {
  const out: Stored[] = []
  for (let from = after, attempt = 0; ; attempt++) {
    requests++
    const res = await fetch(`${t.url}/sessions/${id}/stream`, {
      headers: { authorization: `Bearer ${t.token}`, 'last-event-id': String(from) },
    }).catch(() => undefined)
    if (res && res.status !== 200 && res.status !== 503) throw new Error(`${t.label}: stream answered ${res.status}`)
    if (res?.status === 200) {
      const got = await readSse(res, m => m.id !== undefined && Number(m.id) >= last).catch(() => [])
      for (const m of got)
        if (m.id !== undefined) out.push({ seq: Number(m.id), ...(JSON.parse(m.data!) as { type: string; text?: string }) })
    } else await res?.text()
    if (out.length > 0 && out[out.length - 1].seq >= last) return out
    if (attempt >= 5) throw new Error(`${t.label}: the stream from ${after} ended at ${out.at(-1)?.seq ?? from}, before ${last}`)
    retries++
    from = out.at(-1)?.seq ?? from
  }
}

/** Messages `tag-0 … tag-(count-1)` missing from, and found more than once in, `events`; and seqs seen twice. */
function check(events: Stored[], tag: string, count: number): { lost: number; duplicated: number } {
  const seen = new Map<string, number>()
  for (const e of events) if (e.type === 'message' && e.text?.startsWith(`${tag}-`)) seen.set(e.text, (seen.get(e.text) ?? 0) + 1)
  let lost = 0
  let duplicated = 0
  for (let i = 0; i < count; i++) {
    const n = seen.get(`${tag}-${i}`) ?? 0
    if (n === 0) lost++
    if (n > 1) duplicated += n - 1
  }
  const seqs = new Set<number>()
  for (const e of events) {
    if (seqs.has(e.seq)) duplicated++
    seqs.add(e.seq)
  }
  return { lost, duplicated }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]

/**
 * `session.edge.observers.*`: a scripted run (the `appendix` profile, run_js included) in one session
 * object with OBSERVED SSE streams open on it, against the same run unobserved (wall time from the
 * message's 202 to the session leaving `running`); every stream must receive every event of the log once.
 */
async function observersBench(): Promise<void> {
  const OBSERVED = Number(process.env.SESSION_EDGE_OBSERVERS ?? size(200, 10))
  const files = Object.entries(generateEpisodes({ count: size(20, 4) }).files)
  const timedRun = async (streams: number) => {
    const { id } = await call<{ id: string }>(edge, 'POST', '/sessions', { profile: 'appendix', title: `observed by ${streams}` }, 201)
    for (const [p, data] of files) await call(edge, 'PUT', `/sessions/${id}/file?path=${encodeURIComponent(`/context/${p}`)}`, data, 201)
    const halt = new AbortController()
    const seen = Array.from({ length: streams }, () => [] as number[])
    const open = async (into: number[]) => {
      // Reconnects (a restart cut the stream, or the backlog refused it) resume after the last event received.
      for (let attempt = 0; !halt.signal.aborted && attempt < 20; attempt++) {
        const last = into.at(-1)
        const res = await fetch(`${edge.url}/sessions/${id}/stream`, {
          headers: { authorization: `Bearer ${edge.token}`, ...(last ? { 'last-event-id': String(last) } : {}) },
          signal: halt.signal,
        }).catch(() => undefined)
        if (res?.status === 200) {
          await readSse(res, m => (m.id && into.push(Number(m.id)), false)).catch(() => undefined)
          if (halt.signal.aborted) return
        } else await res?.text().catch(() => undefined)
        if (!halt.signal.aborted) retries++
        await new Promise(r => setTimeout(r, 100))
      }
    }
    const readers: Array<Promise<void>> = []
    for (let o = 0; o < streams; o++) {
      readers.push(open(seen[o]))
      // Opened in waves of 50: each waits until its streams have their first event (session-created).
      if (o % 50 === 49 || o === streams - 1)
        while (seen.slice(0, o + 1).some(x => x.length === 0)) await new Promise(r => setTimeout(r, 50))
    }
    const t = performance.now()
    await call(edge, 'POST', `/sessions/${id}/messages`, { text: 'go' }, 202)
    for (;;) {
      const s = await call<{ status: string }>(edge, 'GET', `/sessions/${id}`)
      if (s.status !== 'running') break
      await new Promise(r => setTimeout(r, 50))
    }
    const ms = performance.now() - t
    const log = await readAll(edge, id)
    const total = log[log.length - 1].seq
    const deadline = Date.now() + 60_000
    while (seen.some(x => (x.at(-1) ?? 0) < total) && Date.now() < deadline) await new Promise(r => setTimeout(r, 100))
    halt.abort()
    await Promise.all(readers)
    let lost = 0
    let duplicated = 0
    for (const x of seen) {
      const set = new Set(x)
      duplicated += x.length - set.size
      for (const e of log) if (!set.has(e.seq)) lost++
    }
    return { ms, lost, duplicated, expected: streams * log.length }
  }
  const alone = await timedRun(0)
  const observed = await timedRun(OBSERVED)
  const label = `events ${OBSERVED} SSE observers of one session object had to receive`
  results.add({
    name: 'session.edge.observers.lost',
    unit: 'events',
    better: 'lower',
    ours: observed.lost,
    baseline: observed.expected,
    target: 'ours = 0',
    baselineLabel: label,
  })
  results.add({
    name: 'session.edge.observers.duplicated',
    unit: 'events',
    better: 'lower',
    ours: observed.duplicated,
    baseline: observed.expected,
    target: 'ours = 0',
    baselineLabel: label,
  })
  results.add({
    name: 'session.edge.observers.run',
    unit: 'ms',
    better: 'lower',
    ours: observed.ms,
    baseline: alone.ms,
    target: 'ratio <= 1.5',
    baselineLabel: 'the same run unobserved',
  })
}

// Nothing selected (`npm run bench -- runjs`): start neither wrangler dev nor the Node host.
if (!wantedAny('session.edge')) process.exit(0)
const node = await nodeTarget()
const edge = await edgeTarget()
try {
  const rounds = smoke ? 1 : Number(process.env.SESSION_EDGE_ROUNDS ?? 3)
  const edgeSent: Array<{ id: string; tag: string; count: number; target: Target }> = []
  let catchupSession: Record<'node' | 'edge', string> | undefined

  if (wanted('session.edge.append') || wanted('session.edge.catchup') || wanted('session.edge.lost') || wanted('session.edge.duplicated')) {
    const ours: number[] = []
    const base: number[] = []
    for (let round = 0; round < rounds; round++) {
      const e = await appendRate(edge, 1, MESSAGES, `one-r${round}`)
      const n = await appendRate(node, 1, MESSAGES, `one-r${round}`)
      ours.push(e.rate)
      base.push(n.rate)
      edgeSent.push(...e.sent)
      catchupSession ??= { edge: e.sent[0].id, node: n.sent[0].id }
    }
    results.add({
      name: 'session.edge.append',
      unit: 'events/s',
      better: 'higher',
      ours: median(ours),
      baseline: median(base),
      baselineLabel: 'Node host on PGlite, same requests',
    })
  }

  if (wanted('session.edge.append.20objects') || wanted('session.edge.lost') || wanted('session.edge.duplicated')) {
    const each = Math.max(1, Math.floor(MESSAGES / 10))
    const ours: number[] = []
    const base: number[] = []
    for (let round = 0; round < rounds; round++) {
      const e = await appendRate(edge, OBJECTS, each, `many-r${round}`)
      const n = await appendRate(node, OBJECTS, each, `many-r${round}`)
      ours.push(e.rate)
      base.push(n.rate)
      edgeSent.push(...e.sent)
    }
    results.add({
      name: 'session.edge.append.20objects',
      unit: 'events/s',
      better: 'higher',
      ours: median(ours),
      baseline: median(base),
      baselineLabel: 'Node host on PGlite, 20 sessions, same requests',
    })
  }

  if (catchupSession && wanted('session.edge.catchup.1k')) {
    const last = { edge: 0, node: 0 }
    for (const side of ['edge', 'node'] as const) {
      const all = await readAll(side === 'edge' ? edge : node, catchupSession[side])
      last[side] = all[all.length - 1].seq
      if (last[side] < CATCHUP) throw new Error(`${side}: only ${last[side]} events to catch up on`)
    }
    const catchUp = async (t: Target, id: string, end: number) => {
      const got = await streamed(t, id, end - CATCHUP, end)
      if (got.length !== CATCHUP) throw new Error(`${t.label}: the catch-up delivered ${got.length} events, not ${CATCHUP}`)
    }
    const ours: number[] = []
    const base: number[] = []
    for (let round = 0; round < (smoke ? 1 : 6); round++) {
      for (const [side, out] of [
        ['edge', ours],
        ['node', base],
      ] as const) {
        const t0 = performance.now()
        await catchUp(side === 'edge' ? edge : node, catchupSession[side], last[side])
        if (smoke || round > 0) out.push(performance.now() - t0)
      }
    }
    results.add({
      name: 'session.edge.catchup.1k',
      unit: 'ms',
      better: 'lower',
      ours: median(ours),
      baseline: median(base),
      baselineLabel: 'Node host on PGlite, same SSE reconnect',
    })
  }

  if (edgeSent.length > 0 && (wanted('session.edge.lost') || wanted('session.edge.duplicated'))) {
    let lost = 0
    let duplicated = 0
    let expected = 0
    for (const { id, tag, count, target } of edgeSent) {
      const paged = await readAll(target, id)
      const replay = await streamed(target, id, 0, paged[paged.length - 1].seq)
      for (const events of [paged, replay]) {
        const r = check(events, tag, count)
        lost += r.lost
        duplicated += r.duplicated
        expected += count
      }
    }
    results.add({
      name: 'session.edge.lost',
      unit: 'events',
      better: 'lower',
      ours: lost,
      baseline: expected,
      target: 'ours = 0',
      baselineLabel: 'acknowledged messages read back (pages + SSE replay)',
    })
    results.add({
      name: 'session.edge.duplicated',
      unit: 'events',
      better: 'lower',
      ours: duplicated,
      baseline: expected,
      target: 'ours = 0',
      baselineLabel: 'acknowledged messages read back (pages + SSE replay)',
    })
    if (lost > 0 || duplicated > 0) throw new Error(`the edge lost ${lost} and duplicated ${duplicated} acknowledged events`)
  }
  if (wantedAny('session.edge.observers')) await observersBench()
  // Retries count the requests of the measurements above: none sent, nothing to report (0/0 was a NaN row).
  if (requests > 0)
    results.add({
      name: 'session.edge.retries',
      unit: 'requests',
      better: 'lower',
      ours: retries,
      baseline: requests,
      baselineLabel: 'requests sent (a restart of the Worker under wrangler dev cut the retried ones off)',
    })
} finally {
  await edge.stop()
  await node.stop()
}
