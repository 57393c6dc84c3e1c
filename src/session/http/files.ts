import type { Context } from 'hono'
import { normalizePath } from 'agent-vfs'
import type { Vfs } from 'agent-vfs'
import { SessionError } from '../errors.js'
import { errorResponse } from './errors.js'
import { parseMultipart } from './multipart.js'

/** The quoted strong ETag of a file: its version and size. */
export const etagOf = (version: number, size: number) => `"v${version}-${size}"`

/**
 * Serves a file with a quoted ETag (304 on If-None-Match) and single `Range: bytes=` requests
 * (206, or 416 when unsatisfiable). Multi-range requests get the whole file.
 */
export async function serveFile(c: Context, ws: Vfs, path: string): Promise<Response> {
  const stat = await ws.stat(path)
  if (stat.type !== 'file') throw new SessionError('invalid', `${path} is a directory; list it with GET /sessions/{id}/files`)
  const etag = etagOf(stat.version, stat.size)
  const headers: Record<string, string> = {
    ETag: etag,
    'Accept-Ranges': 'bytes',
    'Content-Type': stat.mimeType,
    'Last-Modified': new Date(stat.mtime).toUTCString(),
  }
  const match = c.req.header('if-none-match')
  if (match && match.split(',').some(t => t.trim() === etag || t.trim() === '*')) return new Response(null, { status: 304, headers })
  const data = await ws.readFile(path)
  const range = c.req.header('range')
  const ifRange = c.req.header('if-range')
  if (range && (!ifRange || ifRange === etag)) {
    const m = /^bytes=(\d*)-(\d*)$/.exec(range.trim())
    if (m && (m[1] !== '' || m[2] !== '')) {
      const size = data.byteLength
      let start: number
      let end: number
      if (m[1] === '') {
        start = Math.max(0, size - Number(m[2]))
        end = size - 1
      } else {
        start = Number(m[1])
        end = m[2] === '' ? size - 1 : Math.min(Number(m[2]), size - 1)
      }
      if (start >= size || start > end) {
        return c.json({ error: { code: 'range-not-satisfiable', message: `the file has ${size} bytes` } }, 416, {
          'Content-Range': `bytes */${size}`,
        })
      }
      return new Response(data.slice(start, end + 1) as Uint8Array<ArrayBuffer>, {
        status: 206,
        headers: { ...headers, 'Content-Range': `bytes ${start}-${end}/${size}`, 'Content-Length': String(end - start + 1) },
      })
    }
  }
  return new Response(data as Uint8Array<ArrayBuffer>, {
    status: 200,
    headers: { ...headers, 'Content-Length': String(data.byteLength) },
  })
}

/**
 * Reads a multipart upload: every file part's filename is its path relative to `dir` (folders
 * keep their relative paths). Parsed by {@link parseMultipart}, so every host judges the same
 * bytes the same way. Plain fields are ignored; more than `maxFiles` file parts are refused.
 */
export async function readMultipart(c: Context, dir: string, maxFiles: number): Promise<Array<{ path: string; data: Uint8Array }>> {
  const parts = parseMultipart(new Uint8Array(await c.req.arrayBuffer()), c.req.header('content-type'))
  const out: Array<{ path: string; data: Uint8Array }> = []
  for (const { filename: name, data } of parts) {
    if (name === undefined) continue // plain fields are ignored
    if (out.length >= maxFiles) throw new SessionError('invalid', `at most ${maxFiles} files per upload`)
    if (!name || name.startsWith('/'))
      throw new SessionError('invalid', `each part needs a relative filename, got ${JSON.stringify(String(name).slice(0, 200))}`)
    out.push({ path: `${dir}/${name}`, data: data.slice() }) // a copy: the body it came from is let go
  }
  if (out.length === 0) throw new SessionError('invalid', 'the upload has no file parts')
  return out
}

/** The folder an upload goes into. */
export function uploadDir(dir: string | undefined): string {
  try {
    return normalizePath(dir ?? '/context')
  } catch (error) {
    throw new SessionError('invalid', `bad dir: ${(error as Error).message}`)
  }
}

export { errorResponse }
