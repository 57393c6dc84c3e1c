import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { TestProject } from 'vitest/node'

/** The loopback servers of the fetch suite (fetch-suite.ts), by origin (`http://127.0.0.1:<port>`). */
export interface FetchOrigins {
  /** Echoes the request (method, headers, body); `/redirect?to=`, `/big?bytes=(&chunked)`, `/error`, `/status-echo` as the suite needs. */
  echo: string
  /** Another host (a redirect's target): it must never be reached with a secret. */
  other: string
  /** Never answers. */
  slow: string
}

declare module 'vitest' {
  export interface ProvidedContext {
    /** The fetch suite's loopback servers, started by this file's global setup (workers, browser). */
    fetchOrigins: FetchOrigins
  }
}

/** What a server saw: `GET <origin>/__seen` answers it (the tests in workerd and Chromium cannot read this process). */
interface Seen {
  method: string
  url: string
  authorization?: string
}

// CORS, so that a Chromium page (another origin) may call and read them; `authorization` must be named.
const CORS = {
  'access-control-allow-origin': '*',
  'access-control-allow-headers': 'authorization, content-type, x-probe',
  'access-control-allow-methods': 'GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS',
  'access-control-expose-headers': 'x-echo-auth',
}

async function serve(handle: (req: IncomingMessage, res: ServerResponse, body: string) => void) {
  const seen: Seen[] = []
  const server = createServer((req, res) => {
    let body = ''
    req.on('data', c => (body += c))
    req.on('end', () => {
      for (const [k, v] of Object.entries(CORS)) res.setHeader(k, v)
      if (req.method === 'OPTIONS') return res.writeHead(204).end()
      if (req.url === '/__seen') return res.end(JSON.stringify(seen))
      seen.push({
        method: req.method ?? '',
        url: req.url ?? '',
        ...(req.headers.authorization ? { authorization: req.headers.authorization } : {}),
      })
      handle(req, res, body)
    })
  })
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    origin: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>(r => {
        server.closeAllConnections()
        server.close(() => r())
      }),
  }
}

/** Starts the three servers on ports the kernel picks. */
export async function startFetchServers(): Promise<{ origins: FetchOrigins; close(): Promise<void> }> {
  const other = await serve((req, res) => res.end(JSON.stringify({ other: true, headers: req.headers })))
  const echo = await serve((req, res, body) => {
    const u = new URL(req.url ?? '/', 'http://x')
    if (u.pathname === '/redirect') return res.writeHead(302, { location: u.searchParams.get('to') ?? '/' }).end()
    if (u.pathname === '/big' && u.searchParams.has('chunked')) {
      // No Content-Length: the body's size is known only when it ends.
      const bytes = Number(u.searchParams.get('bytes'))
      for (let sent = 0; sent < bytes; sent += 16_384) res.write('x'.repeat(Math.min(16_384, bytes - sent)))
      return res.end()
    }
    if (u.pathname === '/big') return res.end('x'.repeat(Number(u.searchParams.get('bytes') ?? 200_000)))
    // A server that echoes the credential in its status line (HTTP/1.1 reason phrase).
    if (u.pathname === '/status-echo') return res.writeHead(200, `ok ${String(req.headers.authorization)}`).end('fine')
    if (u.pathname === '/error') {
      res.writeHead(500, { 'x-echo-auth': String(req.headers.authorization) })
      return res.end(`bad token ${req.headers.authorization}`)
    }
    res.setHeader('content-type', 'application/json')
    res.end(JSON.stringify({ method: req.method, headers: req.headers, body }))
  })
  const slow = await serve(() => undefined)
  return {
    origins: { echo: echo.origin, other: other.origin, slow: slow.origin },
    close: async () => void (await Promise.all([echo.close(), other.close(), slow.close()])),
  }
}

/** Vitest global setup (workers and browser projects): the servers for every test file, stopped at the end. */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const servers = await startFetchServers()
  project.provide('fetchOrigins', servers.origins)
  return () => servers.close()
}
