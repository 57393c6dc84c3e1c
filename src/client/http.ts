import { SessionApiError, errorFromAnswer } from './errors.js'

/** How the client reaches the server: what {@link createSessionClient} was given, resolved. */
export interface Transport {
  baseUrl: string
  fetch: typeof fetch
  /** The bearer token for the next request (a fresh one each time when `getToken` was given). */
  token(): Promise<string | undefined>
  /** The longest a JSON call may take, answer included. */
  timeoutMs: number
  /** The largest JSON answer read. */
  maxResponseBytes: number
  /** Browsers without a custom `fetch`: uploads with progress go through XMLHttpRequest (see files.ts). */
  xhr?: (
    url: string,
    headers: Headers,
    body: Uint8Array,
    report: (p: { loaded: number; total: number }) => void,
    signal: AbortSignal,
  ) => Promise<unknown>
}

/** The most of an error answer's body read: its `{ error: { code, message } }` is short. */
const MAX_ERROR_BYTES = 64 * 1024

/** `path` with its `{name}` parts filled in and `query` appended (undefined values left out). */
export function buildUrl(baseUrl: string, path: string, params: Record<string, string> = {}, query: object = {}): string {
  const filled = path.replace(/\{(\w+)\}/g, (_, name: string) => {
    const value = params[name]
    if (typeof value !== 'string' || !value) throw new SessionApiError(0, 'invalid', `path parameter "${name}" is missing`)
    return encodeURIComponent(value)
  })
  const search = new URLSearchParams()
  for (const [k, v] of Object.entries(query)) if (v !== undefined && v !== null) search.set(k, String(v))
  const qs = search.toString()
  return `${baseUrl.replace(/\/+$/, '')}${filled}${qs ? `?${qs}` : ''}`
}

/**
 * One signal for a request: the caller's, and a deadline (none when `timeoutMs` is 0). `done()` clears
 * the timer; `reason()` names which of the two fired.
 */
export function requestSignal(outer: AbortSignal | undefined, timeoutMs: number) {
  const controller = new AbortController()
  let timedOut = false
  const onAbort = () => controller.abort(outer?.reason)
  if (outer?.aborted) controller.abort(outer.reason)
  else outer?.addEventListener('abort', onAbort, { once: true })
  const timer =
    timeoutMs > 0
      ? setTimeout(() => {
          timedOut = true
          controller.abort(new SessionApiError(0, 'timeout', `no complete answer within ${timeoutMs} ms`))
        }, timeoutMs)
      : undefined
  return {
    signal: controller.signal,
    /** The answer's headers came and its body is the caller's: only the caller's signal may stop it now. */
    stopClock() {
      clearTimeout(timer)
    },
    done() {
      clearTimeout(timer)
      outer?.removeEventListener('abort', onAbort)
    },
    /** The error to throw for a failure while this signal was in use. */
    failure(cause: unknown): SessionApiError {
      if (cause instanceof SessionApiError) return cause
      if (timedOut) return new SessionApiError(0, 'timeout', `no complete answer within ${timeoutMs} ms`, { cause })
      if (outer?.aborted) return new SessionApiError(0, 'aborted', 'the request was aborted', { cause })
      return new SessionApiError(0, 'network', `the server could not be reached: ${(cause as Error)?.message ?? cause}`, { cause })
    },
  }
}

/** Reads a body whole, refusing (and cancelling) one larger than `max` bytes: a hostile server cannot make it grow. */
export async function readBounded(body: ReadableStream<Uint8Array> | null, max: number): Promise<Uint8Array> {
  if (!body) return new Uint8Array(0)
  const reader = body.getReader()
  const chunks: Uint8Array[] = []
  let size = 0
  try {
    for (;;) {
      const { done, value } = await reader.read()
      if (done) break
      size += value.byteLength
      if (size > max) {
        void reader.cancel().catch(() => undefined)
        throw new SessionApiError(0, 'response-too-large', `the answer is larger than ${max} bytes (maxResponseBytes)`)
      }
      chunks.push(value)
    }
  } finally {
    reader.releaseLock()
  }
  const out = new Uint8Array(size)
  let at = 0
  for (const c of chunks) out.set(c, (at += c.byteLength) - c.byteLength)
  return out
}

/** The headers of every request: the bearer token, and the caller's. */
export async function authHeaders(transport: Transport, extra?: HeadersInit): Promise<Headers> {
  const headers = new Headers(extra)
  const token = await transport.token()
  if (token) headers.set('authorization', `Bearer ${token}`)
  return headers
}

/** Throws the API's error for a non-2xx (and non-304) answer, reading at most a few KiB of it. */
export async function checkAnswer(response: Response): Promise<Response> {
  if ((response.status >= 200 && response.status < 300) || response.status === 304) return response
  let text = ''
  try {
    text = new TextDecoder().decode(await readBounded(response.body, MAX_ERROR_BYTES))
  } catch {
    // Larger than an error answer should be: judged by its status alone.
  }
  throw errorFromAnswer(response.status, text)
}

/** A JSON answer, parsed: bounded in size (`maxResponseBytes`) and, with `signal`, in time. */
export async function readJson(response: Response, max: number): Promise<unknown> {
  const bytes = await readBounded(response.body, max)
  if (bytes.byteLength === 0) return undefined
  try {
    return JSON.parse(new TextDecoder().decode(bytes))
  } catch (cause) {
    throw new SessionApiError(response.status, 'bad-response', 'the server answered something that is not JSON', { cause })
  }
}
