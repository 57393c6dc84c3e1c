import type { TailEvent } from '../records/log-tail.js'
import type { LiveDelta } from '../records/live-text.js'
import { storedJson } from '../records/observe.js'
import type { Heartbeat, SessionEvent } from '../types.js'
import { concat } from './limits.js'

/** One SSE message; `data` is one line of JSON (stored event lines hold no newline). */
export const sseMessage = (id: string, event: string, data: string) => `id: ${id}\nevent: ${event}\ndata: ${data}\n\n`

const encoder = new TextEncoder()
const encoded = new WeakMap<TailEvent[], Uint8Array>()

/**
 * The SSE bytes of a run of events. A tail batch is one array handed to every observer of the
 * session (observeBatches passes it on as is), so it is serialised and encoded once for all its
 * streams, which then share the bytes.
 */
export function sseBytes(events: TailEvent[]): Uint8Array {
  let bytes = encoded.get(events)
  if (!bytes) {
    let text = ''
    for (const { event, json } of events) text += sseMessage(String(event.seq), event.type, json)
    encoded.set(events, (bytes = encoder.encode(text)))
  }
  return bytes
}

export const sseComment = (text: string): Uint8Array => encoder.encode(`: ${text}\n\n`)

/**
 * The SSE bytes of one event of a live observer (`?live=1`). A delta carries no id, so
 * Last-Event-ID stays the last stored event and a reconnect gets the text so far again, once; a
 * stored event goes out as stored (no serialisation per stream).
 */
export function liveSseBytes(e: SessionEvent | Heartbeat | LiveDelta): Uint8Array {
  if (e.type === 'heartbeat') return sseComment(`heartbeat ${e.after}`)
  if (e.type === 'delta') return encoder.encode(`event: delta\ndata: ${JSON.stringify(e)}\n\n`)
  return encoder.encode(sseMessage(String(e.seq), e.type, storedJson(e) ?? JSON.stringify(e)))
}

/**
 * Streams due to write, flushed a few at a time: each round ends the task, so requests that came
 * in meanwhile are answered between two rounds instead of after the whole fan-out of a batch.
 */
const due = new Set<SseSink>()
const ROUND = 32
let flushing = false
const immediate = (globalThis as { setImmediate?: (run: () => void) => unknown }).setImmediate
// Node's setImmediate runs after the I/O poll; elsewhere (workerd, browsers) a zero timer does the same job.
const nextTask = (run: () => void): unknown => (immediate ? immediate(run) : setTimeout(run, 0))
function flushRound(): void {
  let n = 0
  for (const sink of due) {
    due.delete(sink)
    sink.deliver()
    if (++n === ROUND) break
  }
  if (due.size > 0) nextTask(flushRound)
  else flushing = false
}
function enqueue(sink: SseSink): void {
  due.add(sink)
  if (!flushing) {
    flushing = true
    nextTask(flushRound)
  }
}

/**
 * The streams that handed the runtime bytes within the last second: they share the process's write
 * budget. A socket write costs the same whatever it carries (on loopback ~30 µs of the host and as
 * much of the reader, measured with 200 streams), so with many streams busy the windows widen
 * instead of the writes multiplying.
 */
const active = new Set<SseSink>()
const ACTIVE_MS = 1000
let swept = 0
/** How many streams of this process wrote within the last second (those that did not are dropped once a second, no timer). */
export function activeStreams(now = performance.now()): number {
  if (now - swept >= ACTIVE_MS) {
    swept = now
    for (const sink of active) if (now - sink.lastWrite >= ACTIVE_MS) active.delete(sink)
  }
  return active.size
}

/**
 * A stream's write window: `coalesceMs`, widened so that `streams` streams writing once per window
 * make at most `writesPerSecond` writes a second together (200 streams at 4,000/s: 50 ms; 1,000: 250 ms).
 */
export const writeWindow = (coalesceMs: number, streams: number, writesPerSecond: number): number =>
  Math.max(coalesceMs, (streams * 1000) / writesPerSecond)

/** Options of {@link SseSink}. */
export interface SseSinkOptions {
  /**
   * A stream writes at most once per this many ms: what arrives meanwhile leaves together in one
   * chunk (one socket write). The first write after a quiet spell leaves at once. Default 20 ms.
   */
  coalesceMs?: number
  /**
   * The streams of the process together write about this many times a second at most: with more
   * of them busy than that allows at `coalesceMs`, each stream's window widens (see {@link writeWindow}).
   * Default 4,000.
   */
  writesPerSecond?: number
  /** The producer's `write` waits once this many bytes are queued (the client reads slowly). Default 1 MiB. */
  maxPending?: number
  /** The client went away (the runtime cancelled the body). */
  onCancel?: () => void
}

/**
 * The body of one event stream, without a per-chunk transform: the producer hands it bytes (shared
 * between streams, see {@link sseBytes}), which queue until the runtime reads; each read takes all
 * that is queued as one chunk, at most once per `coalesceMs`, in rounds shared by every stream of
 * the process. Order is kept and nothing is dropped: bytes leave in the order they were written.
 */
export class SseSink {
  readonly body: ReadableStream<Uint8Array>
  #controller!: ReadableStreamDefaultController<Uint8Array>
  #chunks: Uint8Array[] = []
  #size = 0
  /** The runtime's read waiting for bytes. */
  #reading: (() => void) | undefined
  #timer: ReturnType<typeof setTimeout> | undefined
  #last = -Infinity
  #closed = false
  #cancelled = false
  #drained: (() => void) | undefined
  readonly #coalesceMs: number
  readonly #writesPerSecond: number
  readonly #maxPending: number

  constructor(options: SseSinkOptions = {}) {
    this.#coalesceMs = options.coalesceMs ?? 20
    this.#writesPerSecond = options.writesPerSecond ?? 4000
    this.#maxPending = options.maxPending ?? 1 << 20
    this.body = new ReadableStream<Uint8Array>(
      {
        start: controller => {
          this.#controller = controller
        },
        pull: () =>
          new Promise<void>(resolve => {
            this.#reading = resolve
            this.#arm()
          }),
        cancel: () => {
          this.#cancelled = this.#closed = true
          clearTimeout(this.#timer)
          due.delete(this)
          active.delete(this)
          this.#release()
          options.onCancel?.()
        },
      },
      { highWaterMark: 0 },
    )
  }

  /** When this stream last handed the runtime bytes (performance.now()). */
  get lastWrite(): number {
    return this.#last
  }

  /** The client is gone: writing more is pointless. */
  get cancelled(): boolean {
    return this.#cancelled
  }

  /** Queues bytes; resolves at once unless `maxPending` bytes wait for a slow client. */
  write(bytes: Uint8Array): Promise<void> {
    if (this.#cancelled || this.#closed) return Promise.resolve()
    this.#chunks.push(bytes)
    this.#size += bytes.length
    this.#arm()
    if (this.#size < this.#maxPending) return Promise.resolve()
    return new Promise(resolve => (this.#drained = resolve))
  }

  /** Ends the stream once what is queued has left. */
  close(): void {
    if (this.#closed) return
    this.#closed = true
    this.#arm()
  }

  /** Called in a flush round: hands the waiting read all that is queued (or the end). */
  deliver(): void {
    const reading = this.#reading
    if (!reading || this.#cancelled) return
    if (this.#size > 0) {
      const chunk = this.#chunks.length === 1 ? this.#chunks[0] : concat(this.#chunks, this.#size)
      this.#chunks = []
      this.#size = 0
      this.#last = performance.now()
      this.#reading = undefined
      this.#controller.enqueue(chunk)
      active.add(this)
      this.#release()
      reading()
    } else if (this.#closed) {
      this.#reading = undefined
      active.delete(this)
      this.#controller.close()
      reading()
    }
  }

  /** Puts the stream in a flush round once the runtime reads and there is something to hand it. */
  #arm(): void {
    if (!this.#reading || this.#timer !== undefined || due.has(this) || (this.#size === 0 && !this.#closed)) return
    const wait = this.#last + writeWindow(this.#coalesceMs, activeStreams(), this.#writesPerSecond) - performance.now()
    if (wait <= 0 || this.#size === 0) enqueue(this)
    else
      // Whole ms: Node keeps one list of timers per duration, so fractional waits would each make a list of their own.
      this.#timer = setTimeout(() => {
        this.#timer = undefined
        enqueue(this)
      }, Math.ceil(wait))
  }

  #release(): void {
    const drained = this.#drained
    this.#drained = undefined
    drained?.()
  }
}
