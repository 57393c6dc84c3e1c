import { afterEach, describe, expect, it } from 'vitest'
import { APPENDIX_INSTRUCTIONS } from '../../fixtures/script-appendix/task.js'
import { startInTabRuntime, type InTabRuntime } from '../../demo/src/runtime/index.js'
import { portFetch } from '../../demo/src/runtime/port-fetch.js'
import { serveRequest } from '../../demo/src/runtime/serve-request.js'
import type { SessionEvent } from '../../src/session/index.js'
import { completions, season } from '../session/harness.js'

// The demo's in-tab runtime in Chromium: the session host in a module Web Worker on IndexedDB,
// run_js in QuickJS, reached only through its HTTP API over MessagePorts.

const started: InTabRuntime[] = []
afterEach(() => {
  for (const rt of started.splice(0)) rt.terminate()
})

async function start(dbName: string, extra: { modelDelayMs?: number } = {}): Promise<InTabRuntime> {
  const rt = await startInTabRuntime({ settings: { mode: 'tab' }, dbName, leaseMs: 1500, ...extra })
  started.push(rt)
  return rt
}

/** Calls the session API of `rt`; JSON in and out; throws on a status other than `expect`. */
async function call<T = any>(rt: InTabRuntime, method: string, path: string, body?: unknown, expectStatus?: number): Promise<T> {
  const init: RequestInit = { method, headers: { authorization: `Bearer ${rt.token}` } }
  if (body instanceof Uint8Array) init.body = body as BodyInit
  else if (body !== undefined) {
    init.body = JSON.stringify(body)
    ;(init.headers as Record<string, string>)['content-type'] = 'application/json'
  }
  const res = await rt.fetch(`${rt.baseUrl}${path}`, init)
  if (expectStatus !== undefined ? res.status !== expectStatus : !res.ok)
    throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`)
  return (await res.json()) as T
}

/** Reads an SSE response: yields each event's parsed data (comments and heartbeats skipped). */
async function* sse(res: Response): AsyncGenerator<SessionEvent> {
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader()
  let buffer = ''
  try {
    for (;;) {
      const { value, done } = await reader.read()
      if (done) return
      buffer += value
      let end: number
      while ((end = buffer.indexOf('\n\n')) >= 0) {
        const block = buffer.slice(0, end)
        buffer = buffer.slice(end + 2)
        const data = block
          .split('\n')
          .filter(l => l.startsWith('data:'))
          .map(l => l.slice(5).trimStart())
          .join('\n')
        if (data) yield JSON.parse(data) as SessionEvent
      }
    }
  } finally {
    reader.releaseLock()
  }
}

function stream(rt: InTabRuntime, id: string, lastEventId?: number): Promise<Response> {
  const headers: Record<string, string> = { authorization: `Bearer ${rt.token}` }
  if (lastEventId !== undefined) headers['last-event-id'] = String(lastEventId)
  return rt.fetch(`${rt.baseUrl}/sessions/${id}/stream`, { headers })
}

describe('demo in-tab runtime (module worker, IndexedDB, QuickJS)', () => {
  it('a run whose worker is killed mid-run resumes in a new worker from its checkpoint; the stream resumes with no event missing or repeated', async () => {
    const dbName = `agent-vfs-test-demo-${crypto.randomUUID()}`
    // Paced model calls: the run is still going when the test kills its worker.
    const first = await start(dbName, { modelDelayMs: 150 })
    const s = await call(first, 'POST', '/sessions', { profile: 'appendix', title: 'reload test' }, 201)
    const encoder = new TextEncoder()
    for (const [p, text] of Object.entries(season()))
      await call(first, 'PUT', `/sessions/${s.id}/file?path=${encodeURIComponent(`/context/${p}`)}`, encoder.encode(text), 201)

    const seen: SessionEvent[] = []
    const before = await stream(first, s.id)
    await call(first, 'POST', `/sessions/${s.id}/messages`, { text: APPENDIX_INSTRUCTIONS }, 202)
    let killedAt: SessionEvent | undefined
    let streamError: unknown
    try {
      for await (const e of sse(before)) {
        seen.push(e)
        // Killed as a reload kills it: at once, right after the first checkpoint past the plan.
        if (e.type === 'checkpoint' && e.revision >= 2 && !killedAt) {
          killedAt = e
          first.terminate()
        }
      }
    } catch (error) {
      streamError = error
    }
    expect(killedAt, 'the run reached a checkpoint').toBeDefined()
    // The stream of a dead worker ends with an error, so a client knows to reconnect.
    expect(String(streamError)).toMatch(/stopped/)
    expect(seen.some(e => e.type === 'execution-end')).toBe(false)

    const second = await start(dbName)
    // The old worker's token still works: the secret is this browser's, kept in IndexedDB.
    await call({ ...second, token: first.token }, 'GET', `/sessions/${s.id}`)
    const last = seen[seen.length - 1].seq
    const after = await stream(second, s.id, last)
    for await (const e of sse(after)) {
      seen.push(e)
      if (e.type === 'approval-required')
        await call(second, 'POST', `/sessions/${s.id}/pending/${e.pendingId}`, { decision: 'always' }, 202)
      if (e.type === 'execution-end') break
    }

    // Every event exactly once, in order, across the two workers and the two streams.
    expect(seen.map(e => e.seq)).toEqual(seen.map((_, i) => i + 1))
    const stored = (await call<{ events: SessionEvent[] }>(second, 'GET', `/sessions/${s.id}/events?limit=1000`)).events
    expect(stored.slice(0, seen.length)).toEqual(seen)
    // Resumed, not restarted: one resumed start, and no plan step completed twice.
    const starts = seen.filter(e => e.type === 'execution-start')
    expect(starts.map(e => (e as { resumed?: boolean }).resumed)).toEqual([false, true])
    const done = completions(seen)
    expect(new Set(done).size).toBe(done.length)
    expect(done.length).toBeGreaterThan(0)
    const end = seen[seen.length - 1] as SessionEvent & { status?: string }
    expect(end.status).toBe('completed')
    expect(seen.some(e => e.type === 'result-accepted')).toBe(true)
    // The outputs run_js wrote are there.
    const files = await call<{ path: string }[]>(second, 'GET', `/sessions/${s.id}/files?prefix=/outputs/`)
    expect(files.map(f => f.path)).toEqual(expect.arrayContaining(['/outputs/appendix.md', '/outputs/assets.json']))
  }, 120_000)

  it('carries bytes, statuses and aborts across the port: binary round-trip, 401, an aborted stream', async () => {
    const rt = await start(`agent-vfs-test-demo-${crypto.randomUUID()}`)
    const res = await rt.fetch(`${rt.baseUrl}/sessions`)
    expect(res.status).toBe(401)
    expect((await res.json()).error.code).toBe('unauthorized')

    const s = await call(rt, 'POST', '/sessions', { profile: 'appendix' }, 201)
    const bytes = new Uint8Array(70_000).map((_, i) => (i * 7919) % 256) // not UTF-8
    await call(rt, 'PUT', `/sessions/${s.id}/file?path=/context/blob.bin`, bytes, 201)
    const got = await rt.fetch(`${rt.baseUrl}/sessions/${s.id}/file?path=/context/blob.bin`, {
      headers: { authorization: `Bearer ${rt.token}` },
    })
    expect(got.status).toBe(200)
    expect(new Uint8Array(await got.arrayBuffer())).toEqual(bytes)

    const controller = new AbortController()
    const live = await rt.fetch(`${rt.baseUrl}/sessions/${s.id}/stream`, {
      headers: { authorization: `Bearer ${rt.token}` },
      signal: controller.signal,
    })
    expect(live.headers.get('content-type')).toMatch(/text\/event-stream/)
    const events = sse(live)
    expect((await events.next()).value?.type).toBe('session-created')
    controller.abort()
    // Events already parsed (the upload's files-changed) may still come out; then the aborted read rejects.
    const drain = async () => {
      for (;;) if ((await events.next()).done) return
    }
    await expect(drain()).rejects.toThrow(/abort/i)
    // The host still answers after the abort.
    expect((await call(rt, 'GET', `/sessions/${s.id}`)).id).toBe(s.id)
  }, 60_000)

  it("tells the host when the page leaves: a cancelled body cancels the host's stream, an abort before the answer aborts the host's request", async () => {
    // The page side and the host side of the bridge in one thread, joined by real MessagePorts.
    let cancelled!: (reason: unknown) => void
    const cancel = new Promise<unknown>(r => (cancelled = r))
    let seen!: (request: Request) => void
    const slow = new Promise<Request>(r => (seen = r))
    const app = (request: Request): Response | Promise<Response> => {
      if (new URL(request.url).pathname === '/slow') {
        seen(request)
        return new Promise<Response>(() => {}) // never answers
      }
      let n = 0
      return new Response(
        new ReadableStream<Uint8Array>(
          { pull: c => c.enqueue(new TextEncoder().encode(`tick ${++n}\n`)), cancel: reason => cancelled(reason) },
          { highWaterMark: 0 },
        ),
      )
    }
    const closed = new AbortController()
    const fetch = portFetch({ postMessage: (m, transfer) => void serveRequest(app, m, transfer[0] as MessagePort) }, closed.signal)

    const res = await fetch('http://in-tab.invalid/stream')
    const reader = res.body!.getReader()
    expect(new TextDecoder().decode((await reader.read()).value)).toBe('tick 1\n')
    await reader.cancel('the page is done')
    await cancel // the host's stream learned it: an SSE handler stops observing

    const controller = new AbortController()
    const pending = fetch('http://in-tab.invalid/slow', { signal: controller.signal })
    const request = await slow
    expect(request.signal.aborted).toBe(false)
    controller.abort()
    await expect(pending).rejects.toThrow(/abort/i)
    await new Promise<void>(r => (request.signal.aborted ? r() : request.signal.addEventListener('abort', () => r())))
    expect(request.signal.aborted).toBe(true)

    // When the host goes away (a reload, a crash), waiting calls and open bodies fail instead of hanging.
    const hanging = fetch('http://in-tab.invalid/slow')
    const open = (await fetch('http://in-tab.invalid/stream')).body!.getReader()
    await open.read()
    closed.abort(new TypeError('the in-tab session host stopped'))
    await expect(hanging).rejects.toThrow(/stopped/)
    await expect(open.read()).rejects.toThrow(/stopped/)
  })
})
