import type { IncomingMessage, ServerResponse } from 'node:http'
import { Readable } from 'node:stream'
import type { Plugin } from 'vite'

/**
 * Serves the session API on the demo's own origin by forwarding `/sessions…` to `target`, as a
 * front proxy does (nginx and Cloudflare read a request body before they forward it). Vite's own
 * proxy pipes the body as it arrives: when the host refuses an oversized upload early (413 and
 * `Connection: close`), the pipe breaks (EPIPE) and the page gets a 502 instead of the host's
 * answer, depending on timing. Responses stream through (the SSE event stream stays live), and a
 * page that goes away cancels the forwarded request.
 */
export function apiProxy(target: string): Plugin {
  const forward = async (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = []
    for await (const chunk of req) chunks.push(chunk as Buffer)
    const body = Buffer.concat(chunks)
    const headers = new Headers()
    for (const [name, value] of Object.entries(req.headers)) {
      if (value === undefined || ['host', 'connection', 'content-length', 'transfer-encoding', 'accept-encoding'].includes(name)) continue
      headers.set(name, Array.isArray(value) ? value.join(', ') : value)
    }
    const gone = new AbortController()
    res.on('close', () => gone.abort())
    let upstream: Response
    try {
      upstream = await fetch(new URL(req.url!, target), {
        method: req.method,
        headers,
        ...(body.byteLength ? { body } : {}),
        signal: gone.signal,
        redirect: 'manual',
      })
    } catch (error) {
      if (!res.headersSent)
        res.writeHead(502, { 'content-type': 'text/plain' }).end(`the session host is unreachable: ${(error as Error).message}`)
      return
    }
    const out: Record<string, string> = {}
    upstream.headers.forEach((value, name) => {
      if (!['content-encoding', 'content-length', 'transfer-encoding', 'connection'].includes(name)) out[name] = value
    })
    res.writeHead(upstream.status, out)
    res.flushHeaders()
    if (!upstream.body) return void res.end()
    Readable.fromWeb(upstream.body as import('node:stream/web').ReadableStream)
      .on('error', () => res.destroy())
      .pipe(res)
  }
  return {
    name: 'demo-test-api-proxy',
    configurePreviewServer(server) {
      server.middlewares.use((req, res, next) => {
        if (!/^\/sessions(\/|\?|$)/.test(req.url ?? '')) return next()
        forward(req, res).catch(error => (res.headersSent ? res.destroy() : res.writeHead(502).end(String(error))))
      })
    },
  }
}
