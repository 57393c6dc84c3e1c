import { SessionError } from '../errors.js'

/** One part of a multipart/form-data body, judged from its raw header bytes. */
export interface MultipartPart {
  /** The `name` parameter of Content-Disposition. */
  name?: string
  /** The `filename` parameter exactly as sent (no escape is undone); undefined for a plain field. */
  filename?: string
  data: Uint8Array
}

const CRLF = [13, 10]
const decoder = new TextDecoder('utf-8', { fatal: true })

/**
 * Parses a multipart/form-data body (RFC 7578) from its bytes. Hosts parse multipart differently
 * (workerd reads `\` in a quoted filename as an escape, Node passes it through), so the API parses
 * it here, once, the same on every host: a filename is the bytes between its quotes, and a filename
 * with a backslash, a `filename*` parameter or bytes that are not UTF-8 is refused with 400.
 */
export function parseMultipart(body: Uint8Array, contentType: string | undefined): MultipartPart[] {
  const type = contentType ?? ''
  const boundary = /;\s*boundary=(?:"([^"]{1,70})"|([^\s;]{1,70}))/i.exec(type)
  if (!/^multipart\/form-data\s*;/i.test(type) || !boundary)
    throw new SessionError('invalid', 'the body is not multipart/form-data (Content-Type: multipart/form-data; boundary=…)')
  const dash = bytes(`--${boundary[1] ?? boundary[2]}`)
  const delimiter = new Uint8Array([...CRLF, ...dash])
  // The first delimiter may open the body without a CRLF before it.
  let at = 0
  if (!startsWith(body, dash, 0)) {
    at = indexOf(body, delimiter, 0) + 2
    if (at < 2) throw malformed('no boundary line')
  }
  const parts: MultipartPart[] = []
  for (;;) {
    at += dash.length
    if (body[at] === 45 && body[at + 1] === 45) return parts // `--boundary--`: the end
    while (body[at] === 32 || body[at] === 9) at++ // transport padding
    if (body[at] !== 13 || body[at + 1] !== 10) throw malformed('a boundary line does not end with CRLF')
    at += 2
    const end = indexOf(body, delimiter, at)
    if (end < 0) throw malformed('the closing boundary is missing')
    parts.push(part(body.subarray(at, end)))
    at = end + 2
  }
}

function part(raw: Uint8Array): MultipartPart {
  const split = startsWith(raw, bytes('\r\n'), 0) ? 0 : indexOf(raw, bytes('\r\n\r\n'), 0)
  if (split < 0) throw malformed('a part has no blank line after its headers')
  let headers: string
  try {
    headers = decoder.decode(raw.subarray(0, split))
  } catch {
    throw new SessionError('invalid', "a part's headers are not UTF-8")
  }
  const data = raw.subarray(split === 0 ? 2 : split + 4)
  const disposition = headers.split('\r\n').find(h => /^content-disposition\s*:/i.test(h))
  if (!disposition) return { data }
  if (/;\s*filename\*\s*=/i.test(disposition))
    throw new SessionError('invalid', 'a part uses filename*=; send the path as filename="…" (UTF-8)')
  const filename = param(disposition, 'filename')
  if (filename?.includes('\\')) {
    throw new SessionError(
      'invalid',
      `a filename may not contain a backslash: ${JSON.stringify(filename.slice(0, 200))}; separate folders with /`,
    )
  }
  const name = param(disposition, 'name')
  return { ...(name !== undefined ? { name } : {}), ...(filename !== undefined ? { filename } : {}), data }
}

/** A parameter of a Content-Disposition header: the raw text between its quotes, or a bare token. */
function param(header: string, key: string): string | undefined {
  const m = new RegExp(`;\\s*${key}\\s*=\\s*(?:"([^"]*)"|([^;\\s"]+))`, 'i').exec(header)
  return m ? (m[1] ?? m[2]) : undefined
}

function malformed(why: string): SessionError {
  return new SessionError('invalid', `the multipart body is malformed: ${why}`)
}

function bytes(text: string): Uint8Array {
  return new TextEncoder().encode(text)
}

function startsWith(haystack: Uint8Array, needle: Uint8Array, at: number): boolean {
  if (at + needle.length > haystack.length) return false
  for (let i = 0; i < needle.length; i++) if (haystack[at + i] !== needle[i]) return false
  return true
}

/** The first index of `needle` in `haystack` at or after `from`, or -1 (the native byte search finds candidates). */
function indexOf(haystack: Uint8Array, needle: Uint8Array, from: number): number {
  for (let i = haystack.indexOf(needle[0], from); i >= 0; i = haystack.indexOf(needle[0], i + 1)) {
    if (startsWith(haystack, needle, i)) return i
  }
  return -1
}
