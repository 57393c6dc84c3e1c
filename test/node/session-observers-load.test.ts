import { afterAll, beforeAll, expect, it } from 'vitest'
import { scriptAppendixProfile } from '../../fixtures/script-appendix/profile.js'
import { memoryStore } from '../../src/index.js'
import { createSessionApp, createSessionHost, mintToken, type SessionHost } from '../../src/session/index.js'
import { listen } from '../session/http-client.js'
import { uploadSeason, until } from '../session/harness.js'

// A small load test: 100 SSE observers over 4 sessions on the real Node HTTP server while runs
// append events. Each observer's sequence is exactly 1..N of its session: none lost, none twice.
const secret = 'test-secret-test-secret-test-secret-0123'
let host: SessionHost
let server: Awaited<ReturnType<typeof listen>>
let token: string

beforeAll(async () => {
  host = createSessionHost({ store: memoryStore(), agents: { appendix: scriptAppendixProfile() }, quota: { maxStreams: 200 } })
  server = await listen(createSessionApp(host, { auth: { secret }, heartbeatMs: 1000 }).fetch)
  token = await mintToken(secret, 'ana')
})
afterAll(async () => {
  await host.stop()
  await server.close()
})

/** Reads an SSE response, collecting the `id:` of every message, until `stop` aborts. */
async function follow(id: string, seqs: number[], stop: AbortSignal): Promise<void> {
  const res = await fetch(`${server.url}/sessions/${id}/stream`, { headers: { authorization: `Bearer ${token}` }, signal: stop })
  expect(res.status).toBe(200)
  let text = ''
  try {
    for (const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader(); ;) {
      const { value: chunk, done } = await reader.read()
      if (done) break
      text += chunk
      let end
      while ((end = text.indexOf('\n\n')) >= 0) {
        const m = /^id: (\d+)$/m.exec(text.slice(0, end))
        text = text.slice(end + 2)
        if (m) seqs.push(Number(m[1]))
      }
    }
  } catch (error) {
    if (!stop.aborted) throw error
  }
}

it('100 SSE observers over 4 sessions while runs append: every observer gets exactly 1..N', async () => {
  const sessions = await Promise.all(Array.from({ length: 4 }, () => host.create({ owner: 'ana', profile: 'appendix' })))
  for (const s of sessions) await uploadSeason(host, s.id)
  const stop = new AbortController()
  const observers = Array.from({ length: 100 }, (_, i) => ({ id: sessions[i % 4].id, seqs: [] as number[] }))
  const reading = observers.map(o => follow(o.id, o.seqs, stop.signal))
  await Promise.all(sessions.map(s => host.send(s.id, { text: 'go' })))
  await Promise.all(sessions.map(s => until(host, s.id, ['idle'], 120_000)))
  const last = new Map(
    await Promise.all(sessions.map(async s => [s.id, (await host.events(s.id, { limit: 10_000 })).at(-1)!.seq] as const)),
  )
  const deadline = Date.now() + 60_000
  while (observers.some(o => (o.seqs.at(-1) ?? 0) < last.get(o.id)!) && Date.now() < deadline) await new Promise(r => setTimeout(r, 50))
  stop.abort()
  await Promise.all(reading)
  for (const o of observers) expect(o.seqs).toEqual(Array.from({ length: last.get(o.id)! }, (_, k) => k + 1))
})

it('an owner over maxStreams gets 429 too-many-streams; a stream that ends gives its place back', async () => {
  const small = createSessionHost({
    store: memoryStore(),
    agents: { appendix: scriptAppendixProfile() },
    quota: { maxStreams: 2 },
  })
  const app = await listen(createSessionApp(small, { auth: { secret } }).fetch)
  try {
    const s = await small.create({ owner: 'ana', profile: 'appendix' })
    const open = (signal?: AbortSignal) =>
      fetch(`${app.url}/sessions/${s.id}/stream`, {
        headers: { authorization: `Bearer ${token}` },
        ...(signal ? { signal } : {}),
      })
    const first = new AbortController()
    const a = await open(first.signal)
    const b = await open()
    expect([a.status, b.status]).toEqual([200, 200])
    const refused = await open()
    expect(refused.status).toBe(429)
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('too-many-streams')
    first.abort()
    // The server learns of the closed stream when its next write fails or the socket closes: wait for it.
    let again = 429
    for (let i = 0; i < 100 && again === 429; i++) {
      await new Promise(r => setTimeout(r, 50))
      const r = await open()
      again = r.status
      await r.body?.cancel()
    }
    expect(again).toBe(200)
    await b.body?.cancel()
  } finally {
    await small.stop()
    await app.close()
  }
})
