import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterEach, expect, it } from 'vitest'
import { createSessionClient, SessionApiError, type ObservedEvent } from '../../src/client/index.js'

// A hostile (or broken) server against agent-vfs/client: endless lines, huge events, bodies that
// never end, streams that go silent or end at once. The client stays bounded and says what happened.
const ID = 's0123456789abcdef0123456789abcdef'
let close: (() => Promise<void>) | undefined
afterEach(async () => {
  await close?.()
  close = undefined
})

async function serve(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<string> {
  const server = createServer(handler)
  await new Promise<void>(r => server.listen(0, '127.0.0.1', r))
  close = () => new Promise<void>(r => (server.closeAllConnections(), server.close(() => r())))
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`
}

/** Writes `chunk` again and again until the client goes away: a body that never ends. */
function endless(res: ServerResponse, chunk: string, headers: Record<string, string>) {
  res.writeHead(200, headers)
  const pump = () => {
    while (!res.destroyed && res.write(chunk));
    if (!res.destroyed) res.once('drain', pump)
  }
  res.on('close', () => res.removeAllListeners('drain'))
  pump()
}

const sse = { 'content-type': 'text/event-stream' }
const event = (seq: number) => `id: ${seq}\nevent: status\ndata: {"seq":${seq},"at":0,"type":"status","status":"idle"}\n\n`

async function drain(iterable: AsyncIterable<ObservedEvent>, into: ObservedEvent[] = []) {
  for await (const e of iterable) into.push(e)
  return into
}

it('an endless SSE line and a huge event end the iteration with event-too-large; memory stays bounded', async () => {
  const url = await serve((req, res) =>
    req.url!.includes('huge') ? endless(res, `data: ${'x'.repeat(60_000)}\n`, sse) : endless(res, 'x'.repeat(64 * 1024), sse),
  )
  const client = createSessionClient({ baseUrl: url, token: 't' })
  const before = process.memoryUsage().rss
  const line = await drain(client.observe(ID, { maxEventBytes: 1024 * 1024 })).catch(e => e)
  expect(line).toBeInstanceOf(SessionApiError)
  expect(line).toMatchObject({ code: 'event-too-large', retryable: false })
  const huge = createSessionClient({ baseUrl: `${url}/huge`, token: 't' })
  expect(await drain(huge.observe(ID, { maxEventBytes: 4 * 1024 * 1024 })).catch(e => e)).toMatchObject({ code: 'event-too-large' })
  expect(process.memoryUsage().rss - before).toBeLessThan(200 * 1024 * 1024)
})

it('a JSON answer that never ends is cut at maxResponseBytes; one that trickles, at timeoutMs', async () => {
  const url = await serve((req, res) => {
    if (req.url!.startsWith('/sessions?')) return endless(res, '["' + 'a'.repeat(64 * 1024), { 'content-type': 'application/json' })
    res.writeHead(200, { 'content-type': 'application/json' })
    res.write('{"id":')
    const timer = setInterval(() => res.write(' '), 50)
    res.on('close', () => clearInterval(timer))
  })
  const client = createSessionClient({ baseUrl: url, token: 't', maxResponseBytes: 1024 * 1024, timeoutMs: 1000 })
  expect(await client.api.listSessions({ query: { limit: 5 } }).catch(e => e)).toMatchObject({ code: 'response-too-large' })
  const started = Date.now()
  expect(await client.api.getSession({ params: { id: ID } }).catch(e => e)).toMatchObject({ code: 'timeout', status: 0 })
  expect(Date.now() - started).toBeLessThan(20_000)
  // A download is bounded the same way.
  expect(await client.download(ID, '/a', { maxBytes: 1_000_000 }).catch(e => e)).toMatchObject({ code: 'timeout' })
})

it('a stream that goes silent is replaced after heartbeatTimeoutMs; reconnects resume with Last-Event-ID: each event once, in order', async () => {
  const asked: Array<string | undefined> = []
  const url = await serve((req, res) => {
    asked.push(req.headers['last-event-id'] as string | undefined)
    res.writeHead(200, sse)
    const n = asked.length
    // 1st: events 1, 2 then silence (no heartbeat). 2nd: 2 again (a replay) and 3, then the server ends it.
    // 3rd: 4, then the next 5 with a heartbeat comment between.
    if (n === 1) res.write(event(1) + event(2))
    else if (n === 2) res.end(event(2) + event(3))
    else res.write(event(4) + ': heartbeat 4\n\n' + event(5))
  })
  const client = createSessionClient({ baseUrl: url, token: 't' })
  const reconnects: Array<string | undefined> = []
  const seen: number[] = []
  for await (const e of client.observe(ID, {
    heartbeatTimeoutMs: 300,
    backoff: { initialMs: 10, maxMs: 20 },
    onReconnect: info => reconnects.push(info.error?.code),
  })) {
    seen.push((e as { seq: number }).seq)
    if (seen.length === 5) break
  }
  expect(seen).toEqual([1, 2, 3, 4, 5])
  expect(asked).toEqual(['0', '2', '3'])
  expect(reconnects).toEqual(['timeout', undefined])
})

it('a server that ends every stream at once, or answers 503, is retried with growing, jittered waits (no tight loop); 401 is final', async () => {
  let connections = 0
  const url = await serve((req, res) => {
    connections++
    if (req.url!.includes('/deny/'))
      return res.writeHead(401, { 'content-type': 'application/json' }).end('{"error":{"code":"unauthorized","message":"no"}}')
    if (connections % 2) res.writeHead(503).end('busy')
    else res.writeHead(200, sse).end()
  })
  const client = createSessionClient({ baseUrl: url, token: 't' })
  const stop = new AbortController()
  const waits: number[] = []
  setTimeout(() => stop.abort(), 1500)
  await drain(client.observe(ID, { signal: stop.signal, backoff: { initialMs: 50, maxMs: 400 }, onReconnect: i => waits.push(i.delayMs) }))
  expect(connections).toBeGreaterThan(3)
  expect(connections).toBeLessThan(40)
  expect(Math.max(...waits)).toBeLessThanOrEqual(400)
  const denied = createSessionClient({ baseUrl: `${url}/deny`, token: 't' })
  expect(await drain(denied.observe(ID)).catch(e => e)).toMatchObject({ status: 401, code: 'unauthorized' })
})
