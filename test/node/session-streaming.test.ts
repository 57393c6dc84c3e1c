import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { memoryStore, type VfsStore } from '../../src/index.js'
import { scriptedModel, type LanguageModel } from '../../src/agent/index.js'
import { createSessionApp, createSessionHost, mintToken, type SessionHost } from '../../src/session/index.js'
import { listen, readSse, type SseMessage } from '../session/http-client.js'
import { until } from '../session/harness.js'

// Streamed text through a Node host's SSE stream (?live=1): live deltas, never stored; the durable
// text as before; a reconnect mid-turn gets the text so far once, then the rest.

const REPLY = Array.from({ length: 60 }, (_, i) => `word${i}`).join(' ') + '.'
/** Released by the reconnect test once its second client is connected: the gated model streams the rest then. */
let release!: () => void
/** A model that streams half of REPLY in pieces, waits for `release()`, then streams the rest. */
const gatedModel = (): LanguageModel => ({
  specificationVersion: 'v2',
  provider: 'test',
  modelId: 'gated',
  doGenerate: () => Promise.reject(new Error('this model only streams')),
  doStream: async () => {
    const gate = new Promise<void>(r => (release = r))
    const pieces = REPLY.match(/.{1,3}/gs)!
    const half = Math.floor(pieces.length / 2)
    return {
      stream: new ReadableStream({
        async start(c) {
          c.enqueue({ type: 'text-start', id: 't' })
          for (const [i, delta] of pieces.entries()) {
            if (i === half) await gate
            else await new Promise(r => setTimeout(r, 2))
            c.enqueue({ type: 'text-delta', id: 't', delta })
          }
          c.enqueue({ type: 'text-end', id: 't' })
          c.enqueue({ type: 'finish', finishReason: 'stop', usage: { inputTokens: 1, outputTokens: 1, totalTokens: 2 } })
          c.close()
        },
      }),
    }
  },
})

const secret = 'test-secret-test-secret-test-secret-0123'
let host: SessionHost
let server: Awaited<ReturnType<typeof listen>>
let token: string
/** Commits to the store, by scope kind. */
const commits: string[] = []

beforeAll(async () => {
  const base = memoryStore()
  const store: VfsStore = { ...base, commit: (namespace, scope, ops) => (commits.push(scope), base.commit(namespace, scope, ops)) }
  host = createSessionHost({
    store,
    agents: {
      // 2 characters every 6 ms: ~180 pieces over ~1.1 s.
      talk: { setup: () => ({ model: scriptedModel(() => ({ text: REPLY }), { chunkChars: 2, chunkDelayMs: 6 }) }) },
      gated: { setup: () => ({ model: gatedModel() }) },
    },
    pollMs: 20,
  })
  server = await listen(createSessionApp(host, { auth: { secret }, heartbeatMs: 1000 }).fetch)
  token = await mintToken(secret, 'ana')
})
afterAll(async () => {
  await host.stop()
  await server.close()
})

const headers = (extra: Record<string, string> = {}) => ({ authorization: `Bearer ${token}`, 'content-type': 'application/json', ...extra })

async function session(profile = 'talk'): Promise<string> {
  const res = await fetch(`${server.url}/sessions`, { method: 'POST', headers: headers(), body: JSON.stringify({ profile }) })
  return ((await res.json()) as { id: string }).id
}
const send = (id: string) =>
  fetch(`${server.url}/sessions/${id}/messages`, { method: 'POST', headers: headers(), body: JSON.stringify({ text: 'talk' }) })
const stream = (id: string, query: string, extra: Record<string, string> = {}) =>
  fetch(`${server.url}/sessions/${id}/stream?${query}`, { headers: headers(extra) })

const deltasOf = (ms: SseMessage[]) =>
  ms.filter(m => m.event === 'delta').map(m => JSON.parse(m.data!) as { at: number; delta: string; streamId: string })
const apply = (ds: Array<{ at: number; delta: string }>, from = '') => ds.reduce((t, d) => t.slice(0, d.at) + d.delta, from)
const isEnd = (m: SseMessage) => m.event === 'execution-end'
/** The first client's text so far, as its deltas arrive. */
let firstShown = ''
const shownSoFar = (m: SseMessage) => (firstShown = apply(deltasOf([m]), firstShown)).length

describe('streaming text over SSE', () => {
  it('sends the text as coalesced live deltas without ids, then the durable text; writes per turn stay bounded', async () => {
    const id = await session()
    const res = await stream(id, 'live=1')
    const before = commits.length
    await send(id)
    const messages = await readSse(res, isEnd)
    await until(host, id, ['idle'])
    const deltas = deltasOf(messages)
    const text = messages.find(m => m.event === 'text')!
    const stored = JSON.parse(text.data!) as { text: string; streamId: string }
    expect(stored.text).toBe(REPLY)
    // Live before durable, under the durable event's stream id, each character once.
    expect(messages.indexOf(messages.find(m => m.event === 'delta')!)).toBeLessThan(messages.indexOf(text))
    expect(deltas.every(d => d.streamId === stored.streamId)).toBe(true)
    expect(apply(deltas)).toBe(REPLY)
    expect(deltas.reduce((n, d) => n + d.delta.length, 0)).toBe(REPLY.length)
    expect(messages.filter(m => m.event === 'delta').every(m => m.id === undefined)).toBe(true)
    // ~200 pieces from the model, coalesced into fewer messages (one per 25 ms window at most).
    expect(deltas.length).toBeGreaterThan(1)
    expect(deltas.length).toBeLessThan(REPLY.length / 2)
    // Nothing live is stored: the log holds the same events a generated turn would.
    const log = await host.events(id)
    expect(log.some(e => (e.type as string) === 'delta')).toBe(false)
    const turnCommits = commits.slice(before)
    expect(turnCommits.length).toBeLessThan(40)
  })

  it('a client that reconnects mid-turn gets the text so far once, then the rest', async () => {
    const id = await session('gated')
    const first = await stream(id, 'live=1')
    await send(id)
    // The first client leaves once it has shown a third of the text; the model is at its half, waiting.
    const part = await readSse(first, m => m.event === 'delta' && shownSoFar(m) >= REPLY.length / 3)
    const lastId = part.filter(m => m.id !== undefined).at(-1)!.id!
    const shown = apply(deltasOf(part))
    expect(REPLY.startsWith(shown)).toBe(true)
    const reconnected = await stream(id, 'live=1', { 'last-event-id': lastId })
    setTimeout(() => release(), 100)
    const again = await readSse(reconnected, isEnd)
    const deltas = deltasOf(again)
    // The first delta is the text so far (at 0, at least what the first client had), then the rest, nothing twice.
    expect(deltas[0].at).toBe(0)
    expect(deltas[0].delta.startsWith(shown)).toBe(true)
    expect(apply(deltas)).toBe(REPLY)
    expect(deltas.reduce((n, d) => n + d.delta.length, 0)).toBe(REPLY.length)
    // Stored events continue after the last id, each once.
    const seqs = again.filter(m => m.id !== undefined).map(m => Number(m.id))
    expect(seqs[0]).toBe(Number(lastId) + 1)
    expect(new Set(seqs).size).toBe(seqs.length)
    await until(host, id, ['idle'])
  })

  it('a stream without ?live=1 gets no deltas (the durable text only)', async () => {
    const id = await session()
    const res = await stream(id, 'after=0')
    await send(id)
    const messages = await readSse(res, isEnd)
    expect(messages.some(m => m.event === 'delta')).toBe(false)
    expect(JSON.parse(messages.find(m => m.event === 'text')!.data!)).toMatchObject({ text: REPLY })
    await until(host, id, ['idle'])
  })
})
