import { serve, type ServerType } from '@hono/node-server'
import type { AddressInfo } from 'node:net'

/** Serves a hono app on a free loopback port. */
export async function listen(fetch: (req: Request) => Response | Promise<Response>): Promise<{ url: string; close(): Promise<void> }> {
  const server: ServerType = await new Promise(resolve => {
    const s = serve({ fetch, hostname: '127.0.0.1', port: 0 }, () => resolve(s))
  })
  const { port } = server.address() as AddressInfo
  return { url: `http://127.0.0.1:${port}`, close: () => new Promise<void>(r => server.close(() => r())) }
}

export { readSse, type SseMessage } from './sse.js'

/**
 * Sends a request with node:http and returns the response even when the server answers before
 * reading the whole body (an early 413), which fetch reports as a socket error.
 */
export async function rawRequest(
  url: string,
  method: string,
  headers: Record<string, string>,
  body: Uint8Array,
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; text: string }> {
  const { request } = await import('node:http')
  return new Promise((resolve, reject) => {
    const req = request(url, { method, headers: { ...headers, 'content-length': String(body.byteLength) } }, res => {
      let text = ''
      res.setEncoding('utf8')
      res.on('data', d => (text += d))
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text }))
    })
    req.on('error', e =>
      (e as NodeJS.ErrnoException).code === 'EPIPE' || (e as NodeJS.ErrnoException).code === 'ECONNRESET' ? undefined : reject(e),
    )
    req.end(body)
  })
}
