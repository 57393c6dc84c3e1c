import { backoffDelay, sleep, type Backoff } from './backoff.js'
import { SessionApiError } from './errors.js'
import type { ObservedEvent } from './events.js'
import { authHeaders, buildUrl, checkAnswer, type Transport } from './http.js'
import { SseParser, type SseMessage } from './sse.js'

/** Options of {@link SessionClient.observe}. */
export interface ObserveOptions {
  /** Start after this sequence: 0 (the default) replays the whole log, then live events follow. */
  after?: number
  /** Also the live text of a running execution (`delta` events, never stored). */
  live?: boolean
  /** Ends the iteration (quietly: the loop just ends). */
  signal?: AbortSignal
  /**
   * A connection that brings nothing (no event, no heartbeat) for this long is taken for dead and
   * replaced. Default 45 s: three of the servers' 15 s heartbeats.
   */
  heartbeatTimeoutMs?: number
  /** The waits between reconnects. */
  backoff?: Backoff
  /** The largest event read, in characters (an endless line or a huge event is an error). Default 16 MiB. */
  maxEventBytes?: number
  /** Called before each reconnect, with the failure that caused it (none when the server ended the stream). */
  onReconnect?: (info: { attempt: number; delayMs: number; error?: SessionApiError; after: number }) => void
}

/** Where a connection stopped: the next one resumes after `last`; `received` says whether it brought anything. */
interface Progress {
  last: number
  received: boolean
}

/**
 * The session's events as an async iterable that reconnects by itself: each connection resumes with
 * `Last-Event-ID` (and `?after=`) from the last event delivered, so every event comes once and in
 * order across a server restart or a Durable Object reset; a connection silent for
 * `heartbeatTimeoutMs` is dropped and replaced; reconnects back off with jitter. It ends when
 * `signal` aborts or the loop breaks, and throws {@link SessionApiError} for what a retry cannot mend
 * (401, 404, an event over `maxEventBytes`).
 */
export async function* observeSession(
  transport: Transport,
  sessionId: string,
  options: ObserveOptions = {},
): AsyncGenerator<ObservedEvent> {
  const progress: Progress = { last: options.after ?? 0, received: false }
  let attempt = 0
  while (!options.signal?.aborted) {
    progress.received = false
    let failure: SessionApiError | undefined
    try {
      yield* connection(transport, sessionId, options, progress)
    } catch (error) {
      if (options.signal?.aborted) return
      if (!(error instanceof SessionApiError) || !error.retryable) throw error
      failure = error
    }
    // A connection that brought events was healthy: the next one starts the backoff over.
    if (progress.received) attempt = 0
    const delayMs = progress.received && !failure ? 0 : backoffDelay(attempt++, options.backoff)
    options.onReconnect?.({ attempt, delayMs, after: progress.last, ...(failure ? { error: failure } : {}) })
    await sleep(delayMs, options.signal)
  }
}

/** One connection: yields its events past `progress.last` until the server ends it or it fails. */
async function* connection(
  transport: Transport,
  sessionId: string,
  options: ObserveOptions,
  progress: Progress,
): AsyncGenerator<ObservedEvent> {
  const silence = options.heartbeatTimeoutMs ?? 45_000
  const controller = new AbortController()
  const stop = () => controller.abort()
  options.signal?.addEventListener('abort', stop, { once: true })
  const watchdog = new Watchdog(silence, () =>
    controller.abort(new SessionApiError(0, 'timeout', `nothing from the stream for ${silence} ms`)),
  )
  try {
    watchdog.arm()
    const url = buildUrl(
      transport.baseUrl,
      '/sessions/{id}/stream',
      { id: sessionId },
      { after: progress.last, live: options.live ? '1' : undefined },
    )
    const headers = await authHeaders(transport, { accept: 'text/event-stream', 'last-event-id': String(progress.last) })
    const response = await checkAnswer(await transport.fetch(url, { headers, signal: controller.signal }).catch(e => fail(controller, e)))
    if (!response.body) throw new SessionApiError(response.status, 'bad-response', 'the stream answer has no body')
    const reader = response.body.pipeThrough(new TextDecoderStream()).getReader()
    const parser = new SseParser(options.maxEventBytes ?? 16 * 1024 * 1024)
    try {
      for (;;) {
        watchdog.arm()
        const { done, value } = await reader.read().catch(e => fail(controller, e))
        // Not armed while the caller handles what this read brought: a slow consumer is no dead server.
        watchdog.disarm()
        if (done) return
        for (const message of parser.push(value)) {
          const event = decode(message, progress.last)
          if (!event) continue
          if (event.type !== 'delta') progress.last = event.seq
          progress.received = true
          yield event
        }
      }
    } finally {
      void reader.cancel().catch(() => undefined)
    }
  } finally {
    watchdog.disarm()
    options.signal?.removeEventListener('abort', stop)
    controller.abort()
  }
}

/** A stored event past `last`, or a live delta; an event at or before `last` was delivered already. */
function decode(message: SseMessage, last: number): ObservedEvent | undefined {
  if (message.event === 'delta') return parse(message.data) as ObservedEvent
  const seq = Number(message.id)
  if (!Number.isSafeInteger(seq))
    throw new SessionApiError(0, 'bad-response', `an event of the stream has no sequence number (id: ${message.id})`)
  if (seq <= last) return undefined
  return parse(message.data) as ObservedEvent
}

function parse(data: string): unknown {
  try {
    return JSON.parse(data)
  } catch (cause) {
    throw new SessionApiError(0, 'bad-response', 'an event of the stream is not JSON', { cause })
  }
}

/** The failure of a read or a fetch: the reason the connection was aborted for, or a network error. */
function fail(controller: AbortController, cause: unknown): never {
  const reason: unknown = controller.signal.reason
  if (reason instanceof SessionApiError) throw reason
  if (cause instanceof SessionApiError) throw cause
  throw new SessionApiError(0, 'network', `the event stream broke: ${(cause as Error)?.message ?? cause}`, { cause })
}

/** Fires `onSilence` when it is not re-armed within `ms`. */
class Watchdog {
  private timer: ReturnType<typeof setTimeout> | undefined
  constructor(
    private readonly ms: number,
    private readonly onSilence: () => void,
  ) {}
  arm() {
    clearTimeout(this.timer)
    this.timer = setTimeout(this.onSilence, this.ms)
  }
  disarm() {
    clearTimeout(this.timer)
  }
}
