import type { MiddlewareHandler } from 'hono'
import { errorResponse } from './errors.js'

/** Largest JSON request body when `maxJsonBytes` is not given: 1 MiB (a message is at most 100,000 characters). */
export const DEFAULT_MAX_JSON_BYTES = 1024 * 1024
/** Largest upload body (`PUT …/file`, `POST …/files`) when `maxUploadBytes` is not given: 20 MiB. */
export const DEFAULT_MAX_UPLOAD_BYTES = 20 * 1024 * 1024
/** How much of an oversized body is read and thrown away, so the client can read the 413, when `drainBytes` is not given. */
export const DEFAULT_DRAIN_BYTES = 256 * 1024 * 1024

/** The limits of {@link bodyLimits}. */
export interface BodyLimits {
  maxJsonBytes: number
  maxUploadBytes: number
  drainBytes: number
}

/** Which limit a request's body has: uploads are the two file-writing routes, everything else is JSON. */
export function limitOf(method: string, path: string, limits: BodyLimits): { bytes: number; what: string } {
  const upload =
    (method === 'PUT' && /\/sessions\/[^/]+\/file$/.test(path)) || (method === 'POST' && /\/sessions\/[^/]+\/files$/.test(path))
  return upload ? { bytes: limits.maxUploadBytes, what: 'uploads' } : { bytes: limits.maxJsonBytes, what: 'JSON request bodies' }
}

/**
 * Bounds every request body before anything reads it, on any host (Web streams only): the body is
 * counted while it streams in, whatever Content-Length says or whether there is one, and held in
 * memory only up to the route's limit. Over it, the rest of the body is read and thrown away (up to
 * `drainBytes`, so a client that writes its whole body before reading still gets the answer instead
 * of a reset connection), then the request is answered 413 `{ error }` naming the limit. A body that
 * announces more than `drainBytes` is answered at once, with `Connection: close`.
 */
export function bodyLimits(limits: BodyLimits): MiddlewareHandler {
  return async (c, next) => {
    const body = c.req.raw.body
    if (!body) return next()
    const { bytes: max, what } = limitOf(c.req.method, c.req.path, limits)
    const tooLarge = (seen: string) => {
      c.header('Connection', 'close')
      return errorResponse(c, 413, 'too-large', `${what} are limited to ${max} bytes on this route; this one has ${seen}`)
    }
    const declared = c.req.header('content-length')
    const length = declared !== undefined && /^\d{1,16}$/.test(declared.trim()) ? Number(declared) : undefined
    if (length !== undefined && length > limits.drainBytes) {
      await body.cancel().catch(() => undefined)
      return tooLarge(`${length} (Content-Length)`)
    }
    const reader = body.getReader()
    const chunks: Uint8Array[] = []
    let size = 0
    for (;;) {
      const { done, value } = await reader.read()
      if (done) break
      size += value.byteLength
      if (size > max) {
        await drain(reader, size, limits.drainBytes)
        return tooLarge(length !== undefined ? `${length} (Content-Length)` : `more than ${max}`)
      }
      chunks.push(value)
    }
    c.req.raw = new Request(c.req.raw, { body: concat(chunks, size) })
    return next()
  }
}

/** Reads and discards what is left of a body, up to `cap` bytes in all; then lets it go. */
async function drain(reader: ReadableStreamDefaultReader<Uint8Array>, read: number, cap: number): Promise<void> {
  try {
    while (read <= cap) {
      const { done, value } = await reader.read()
      if (done) return
      read += value.byteLength
    }
    await reader.cancel()
  } catch {
    // The client went away: nothing to answer.
  }
}

/** The chunks as one array of `size` bytes. */
export function concat(chunks: Uint8Array[], size: number): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(size)
  let offset = 0
  for (const chunk of chunks) {
    out.set(chunk, offset)
    offset += chunk.byteLength
  }
  return out
}

/** The limits of an app's options, with defaults. */
export function resolveBodyLimits(options: { maxJsonBytes?: number; maxUploadBytes?: number; drainBytes?: number }): BodyLimits {
  const limits = {
    maxJsonBytes: options.maxJsonBytes ?? DEFAULT_MAX_JSON_BYTES,
    maxUploadBytes: options.maxUploadBytes ?? DEFAULT_MAX_UPLOAD_BYTES,
    drainBytes: options.drainBytes ?? DEFAULT_DRAIN_BYTES,
  }
  for (const [name, value] of Object.entries(limits)) {
    if (!Number.isSafeInteger(value) || value < 1)
      throw new RangeError(`${name} must be a positive whole number of bytes, got ${String(value)}`)
  }
  return limits
}
