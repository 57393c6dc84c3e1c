/**
 * What went wrong with a call to the session API. `status` is the HTTP status (0 when no answer came:
 * a network failure, a timeout, an abort); `code` is the API's error code (`not-found`, `invalid`,
 * `conflict`, `too-many-streams`, …) or one of the client's own: `network`, `timeout`, `aborted`,
 * `response-too-large`, `event-too-large`, `bad-response`. `body` is the parsed error answer when there
 * was one (a 409 of a proposal carries `conflicts`).
 */
export class SessionApiError extends Error {
  override readonly name = 'SessionApiError'
  readonly status: number
  readonly code: string
  readonly body: unknown

  constructor(status: number, code: string, message: string, options: { body?: unknown; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause })
    this.status = status
    this.code = code
    this.body = options.body
  }

  /** A retry may succeed: no answer came, the server was down or busy, or the caller is over its stream quota for now. */
  get retryable(): boolean {
    return this.status === 0
      ? this.code === 'network' || this.code === 'timeout'
      : this.status === 429 || this.status === 408 || this.status >= 500
  }
}

/** The error of a non-2xx answer whose body was read (at most a few KiB of it). */
export function errorFromAnswer(status: number, text: string): SessionApiError {
  let body: unknown
  try {
    body = JSON.parse(text)
  } catch {
    body = undefined
  }
  const error = (body as { error?: { code?: unknown; message?: unknown } } | undefined)?.error
  if (error && typeof error.code === 'string' && typeof error.message === 'string')
    return new SessionApiError(status, error.code, error.message, { body })
  return new SessionApiError(status, `http-${status}`, `the server answered ${status}${text ? `: ${text.slice(0, 200)}` : ''}`, { body })
}
