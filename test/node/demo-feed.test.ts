import { afterAll, beforeAll, expect, it } from 'vitest'
import { scriptAppendixProfile } from '../../fixtures/script-appendix/profile.js'
import { SessionClient } from '../../demo/src/api/client.js'
import { followEvents } from '../../demo/src/api/feed.js'
import type { SessionEvent as DemoEvent } from '../../demo/src/api/types.js'
import { memoryStore } from '../../src/index.js'
import { createSessionApp, createSessionHost, mintToken, type SessionHost } from '../../src/session/index.js'
import { listen } from '../session/http-client.js'
import { uploadSeason, until } from '../session/harness.js'

// The demo's feed (demo/src/api/feed.ts) against the real HTTP API: what crosses the wire after a
// reload, counted as test/demo/event-probe.ts counts it in the page (every GET /events page and
// every SSE message), holds each seq once.
const secret = 'test-secret-test-secret-test-secret-0123'
let host: SessionHost
let server: Awaited<ReturnType<typeof listen>>
let token: string

beforeAll(async () => {
  host = createSessionHost({ store: memoryStore(), agents: { appendix: scriptAppendixProfile() }, pollMs: 50 })
  server = await listen(createSessionApp(host, { auth: { secret }, heartbeatMs: 200 }).fetch)
  token = await mintToken(secret, 'ana')
})
afterAll(async () => {
  await host.stop()
  await server.close()
})

/** A fetch that records the seq of every event it carries to the page, per response. */
function probedFetch(received: number[]): typeof fetch {
  return async (input, init) => {
    const res = await fetch(input, init)
    const path = new URL(typeof input === 'string' ? input : input instanceof URL ? input.href : input.url).pathname
    const stream = /\/stream$/.test(path)
    if (!res.ok || !res.body || (!stream && !/\/events$/.test(path))) return res
    const [mine, theirs] = res.body.tee()
    void (async () => {
      let text = ''
      try {
        for (const reader = mine.pipeThrough(new TextDecoderStream()).getReader(); ;) {
          const { value: chunk, done } = await reader.read()
          if (done) break
          text += chunk
          if (!stream) continue
          let end
          while ((end = text.indexOf('\n\n')) >= 0) {
            const id = /^id: ?(\d+)$/m.exec(text.slice(0, end))
            text = text.slice(end + 2)
            if (id) received.push(Number(id[1]))
          }
        }
      } catch {
        return // the page cancelled the stream
      }
      if (!stream) for (const e of (JSON.parse(text) as { events: DemoEvent[] }).events) received.push(e.seq)
    })()
    return new Response(theirs, { status: res.status, headers: res.headers })
  }
}

it('a reload while the run appended resumes with no event sent twice: the redraw stops at the seq the tab last saw', async () => {
  const s = await host.create({ owner: 'ana', profile: 'appendix' })
  await uploadSeason(host, s.id)
  await host.send(s.id, { text: 'go' })
  await until(host, s.id, ['idle'])
  const last = (await host.events(s.id, { limit: 10_000 })).at(-1)!.seq
  // The tab saw up to last - 2, then reloaded while the run appended two more (issue 15: 51 and 52 twice).
  const stored = new Map([[`agent-vfs-demo.seq.${s.id}`, String(last - 2)]])
  const storage = { getItem: (k: string) => stored.get(k) ?? null, setItem: (k: string, v: string) => void stored.set(k, v) }
  const received: number[] = []
  const delivered: number[] = []
  const stop = new AbortController()
  const client = new SessionClient({ baseUrl: server.url, token, fetch: probedFetch(received) })
  const done = followEvents(client, s.id, {
    signal: stop.signal,
    storage,
    onEvents: events => delivered.push(...events.map(e => e.seq)),
  })
  const deadline = Date.now() + 30_000
  while (delivered.at(-1) !== last && Date.now() < deadline) await new Promise(r => setTimeout(r, 20))
  stop.abort()
  await done
  const all = Array.from({ length: last }, (_, i) => i + 1)
  expect(delivered).toEqual(all)
  expect(
    received.filter((seq, i) => received.indexOf(seq) !== i),
    'events sent twice',
  ).toEqual([])
  expect([...received].sort((a, b) => a - b)).toEqual(all)
})
