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
 * Ratios are edge / Node host, measured in the same run, ours and the baseline alternating.
 * Sizes: SESSION_EDGE_MESSAGES (1000 in one session; 20 sessions get a tenth each), WINDOW (8).
 * Run: `node --import tsx bench/session-edge.bench.ts [filter]` (starts and stops its own wrangler).
 */
import { PGlite } from '@electric-sql/pglite'
import { postgresStore } from '../src/index.js'
import { createSessionApp, createSessionHost, mintToken } from '../src/session/index.js'
import { scriptAppendixProfile } from '../fixtures/script-appendix/profile.js'
import { listen, readSse } from '../test/session/http-client.js'
import { startWorker } from '../test/wrangler-dev/harness.js'
import { Results, size, smoke, wanted } from './harness.js'

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
  stop(): Promise<void>
}

async function nodeTarget(): Promise<Target> {
  const db = await PGlite.create()
  const store = postgresStore({ client: db })
  await store.migrate()
  const host = createSessionHost({ store, agents: { [PROFILE]: scriptAppendixProfile({ askFirst: true, approveRunJs: true }) }, pollMs: 200 })
  const secret = 'bench-secret-bench-secret-bench-secret-00'
  const server = await listen(createSessionApp(host, { auth: { secret }, heartbeatMs: 1000 }).fetch)
  return {
    label: 'Node host on PGlite',
    url: server.url,
    token: await mintToken(secret, 'bench'),
    async stop() {
      await host.stop()
      await server.close()
      await db.close()
    },
  }
}

async function edgeTarget(): Promise<Target> {
  const dev = await startWorker()
  return { label: 'wrangler dev', url: dev.url, token: await dev.token('bench'), stop: () => dev.stop() }
}

async function call<T>(t: Target, method: string, path: string, body?: unknown, expect = 200): Promise<T> {
  const res = await fetch(`${t.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${t.token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  })
  const text = await res.text()
  if (res.status !== expect) throw new Error(`${t.label}: ${method} ${path} answered ${res.status}, wanted ${expect}: ${text.slice(0, 500)}`)
  return JSON.parse(text) as T
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
    await new Promise((r) => setTimeout(r, 50))
  }
}

/** Sends `count` messages `tag-<i>` to the session, `WINDOW` at a time; resolves when every one is acknowledged. */
async function sendMessages(t: Target, id: string, tag: string, count: number): Promise<void> {
  let next = 0
  await Promise.all(Array.from({ length: Math.min(WINDOW, count) }, async () => {
    while (next < count) {
      const i = next++
      await call(t, 'POST', `/sessions/${id}/messages`, { text: `${tag}-${i}` }, 202)
    }
  }))
}

/** events/s of `count` messages into each of `sessions` waiting sessions; returns the rate and what was sent. */
async function appendRate(t: Target, sessions: number, count: number, tag: string): Promise<{ rate: number; sent: Array<{ id: string; tag: string; count: number }> }> {
  const ids = await Promise.all(Array.from({ length: sessions }, () => waitingSession(t)))
  const t0 = performance.now()
  await Promise.all(ids.map((id, s) => sendMessages(t, id, `${tag}-s${s}`, count)))
  const rate = (sessions * count) / ((performance.now() - t0) / 1000)
  return { rate, sent: ids.map((id, s) => ({ id, tag: `${tag}-s${s}`, count })) }
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

/** The session's events as an SSE stream replays them from `after` up to `last`. */
async function streamed(t: Target, id: string, after: number, last: number): Promise<Stored[]> {
  const res = await fetch(`${t.url}/sessions/${id}/stream`, { headers: { authorization: `Bearer ${t.token}`, 'last-event-id': String(after) } })
  if (res.status !== 200) throw new Error(`${t.label}: stream answered ${res.status}`)
  const got = await readSse(res, (m) => m.id !== undefined && Number(m.id) >= last)
  return got.filter((m) => m.id !== undefined).map((m) => ({ seq: Number(m.id), ...(JSON.parse(m.data!) as { type: string; text?: string }) }))
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

const node = await nodeTarget()
const edge = await edgeTarget()
try {
  const rounds = smoke ? 1 : 3
  const edgeSent: Array<{ id: string; tag: string; count: number }> = []
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
    results.add({ name: 'session.edge.append', unit: 'events/s', better: 'higher', ours: median(ours), baseline: median(base), baselineLabel: 'Node host on PGlite, same requests' })
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
    results.add({ name: 'session.edge.append.20objects', unit: 'events/s', better: 'higher', ours: median(ours), baseline: median(base), baselineLabel: 'Node host on PGlite, 20 sessions, same requests' })
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
      for (const [side, out] of [['edge', ours], ['node', base]] as const) {
        const t0 = performance.now()
        await catchUp(side === 'edge' ? edge : node, catchupSession[side], last[side])
        if (smoke || round > 0) out.push(performance.now() - t0)
      }
    }
    results.add({ name: 'session.edge.catchup.1k', unit: 'ms', better: 'lower', ours: median(ours), baseline: median(base), baselineLabel: 'Node host on PGlite, same SSE reconnect' })
  }

  if (edgeSent.length > 0 && (wanted('session.edge.lost') || wanted('session.edge.duplicated'))) {
    let lost = 0
    let duplicated = 0
    let expected = 0
    for (const { id, tag, count } of edgeSent) {
      const paged = await readAll(edge, id)
      const replay = await streamed(edge, id, 0, paged[paged.length - 1].seq)
      for (const events of [paged, replay]) {
        const r = check(events, tag, count)
        lost += r.lost
        duplicated += r.duplicated
        expected += count
      }
    }
    results.add({ name: 'session.edge.lost', unit: 'events', better: 'lower', ours: lost, baseline: expected, target: 'ours = 0', baselineLabel: 'acknowledged messages read back (pages + SSE replay)' })
    results.add({ name: 'session.edge.duplicated', unit: 'events', better: 'lower', ours: duplicated, baseline: expected, target: 'ours = 0', baselineLabel: 'acknowledged messages read back (pages + SSE replay)' })
    if (lost > 0 || duplicated > 0) throw new Error(`the edge lost ${lost} and duplicated ${duplicated} acknowledged events`)
  }
} finally {
  await edge.stop()
  await node.stop()
}
