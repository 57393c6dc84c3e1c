import { request } from 'node:http'

/** What a streamed request got: the answer (if any came) and the socket error (if any). */
export interface StreamedAnswer {
  status?: number
  text: string
  /** EPIPE, ECONNRESET …: the connection broke before the whole answer was read. */
  error?: string
}

/**
 * Sends `total` bytes (a repeated chunk, so the client holds almost nothing) with node:http, with a
 * Content-Length or chunked, honouring back-pressure, and reads the answer to its end. A host
 * that answers before reading the body and then closes shows up as `error`.
 */
export function streamRequest(
  url: string,
  method: string,
  headers: Record<string, string>,
  total: number,
  options: { contentLength: boolean; prefix?: string },
): Promise<StreamedAnswer> {
  const chunk = new Uint8Array(64 * 1024).fill(0x61) // 'a'
  const prefix = new TextEncoder().encode(options.prefix ?? '')
  return new Promise(resolve => {
    const out: StreamedAnswer = { text: '' }
    let settled = false
    const finish = () => {
      if (settled) return
      settled = true
      resolve(out)
    }
    const req = request(
      url,
      {
        method,
        headers: {
          ...headers,
          ...(options.contentLength ? { 'content-length': String(total) } : { 'transfer-encoding': 'chunked' }),
        },
      },
      res => {
        out.status = res.statusCode
        res.setEncoding('utf8')
        res.on('data', d => (out.text += d))
        res.on('end', finish)
        res.on('error', e => ((out.error = (e as NodeJS.ErrnoException).code ?? e.message), finish()))
      },
    )
    req.on('error', e => {
      out.error = (e as NodeJS.ErrnoException).code ?? e.message
      // An answer may still be on its way in; give it a moment.
      setTimeout(finish, 200)
    })
    let sent = 0
    const pump = () => {
      while (sent < total) {
        const piece =
          sent === 0 && prefix.length
            ? prefix.subarray(0, Math.min(prefix.length, total))
            : chunk.subarray(0, Math.min(chunk.length, total - sent))
        sent += piece.length
        if (!req.write(piece)) return void req.once('drain', pump)
      }
      req.end()
    }
    pump()
  })
}
