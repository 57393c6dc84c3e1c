import type { TailEvent, TailListener } from './log-tail.js'
import type { EventLine, Heartbeat, SessionEvent } from '../types.js'

/** Options of `observe`. */
export interface ObserveOptions {
  /** Yield events with a sequence above this (0 or absent: from the start). */
  after?: number
  /** Yield a {@link Heartbeat} after this long without an event. Default 15 s; 0 disables. */
  heartbeatMs?: number
  /** End after this long without an event. Default: never. */
  idleTimeoutMs?: number
  /**
   * How often the session's shared tail looks at the store without a signal (another process
   * appended). The tail polls once for all its observers, as often as the most eager asks.
   * Default: the host's `pollMs`.
   */
  pollMs?: number
  /** Ends the iteration. */
  signal?: AbortSignal
}

/** What an observer needs: its catch-up reads, and the session's shared tail. */
export interface ObserveSource {
  read(after: number, limit: number): Promise<EventLine[]>
  subscribe(listener: TailListener, pollMs?: number): Promise<{ head: number; off: () => void }>
}

const PAGE = 1000
/** Live events an observer holds unconsumed at most; beyond, it drops them and reads them back from the store. */
const MAX_QUEUED = 10_000

/** The stored JSON text of an event an observer yielded (undefined for one it did not). */
const storedText = new WeakMap<SessionEvent, string>()
export const storedJson = (event: SessionEvent): string | undefined => storedText.get(event)

/**
 * Yields exactly the events after `after`, one at a time: {@link observeBatches} flattened, each
 * event's stored text kept for {@link storedJson}.
 */
export async function* observeLog(source: ObserveSource, options: ObserveOptions = {}): AsyncGenerator<SessionEvent | Heartbeat> {
  for await (const batch of observeBatches(source, options)) {
    if (!Array.isArray(batch)) {
      yield batch
      continue
    }
    for (const { event, json } of batch) {
      storedText.set(event, json)
      yield event
      if (options.signal?.aborted) return
    }
  }
}

/**
 * Yields exactly the events after `after` in runs of consecutive events: stored ones first (the
 * observer's own catch-up read, a page at a time), then the session's shared tail, a batch at a
 * time, with no gap and no duplicate. A tail batch the observer takes whole is yielded as the very
 * array the tail handed out, so a host serving many observers can serialise it once for all (see
 * http/sse-batch.ts). The seam is held by the cursor: the observer subscribes before its catch-up,
 * reads from the store only up to the tail's head, skips what it already yielded, and reads the
 * store again only if it finds a gap (it fell more than {@link MAX_QUEUED} events behind). Every
 * event comes from the store, never from a writer's memory. An idle observer costs no read. Ends
 * after yielding `session-closed`, on the idle timeout, or when `signal` aborts.
 */
export async function* observeBatches(source: ObserveSource, options: ObserveOptions = {}): AsyncGenerator<TailEvent[] | Heartbeat> {
  let cursor = Math.max(0, Math.floor(options.after ?? 0))
  const heartbeatMs = options.heartbeatMs ?? 15_000
  const idleMs = options.idleTimeoutMs ?? 0
  const { signal } = options
  let queue: TailEvent[][] = []
  let queued = 0
  let dropped = false
  let closed = false
  const sleep = new Sleep()
  const listener: TailListener = batch => {
    if (batch.length === 0) return
    if (queued + batch.length > MAX_QUEUED) {
      queue = []
      queued = 0
      dropped = true
    } else {
      queue.push(batch)
      queued += batch.length
    }
    sleep.wake()
  }
  const onAbort = () => sleep.wake()
  signal?.addEventListener('abort', onAbort)
  /** The events of `batch` after the cursor, up to a `session-closed`; the same array when that is all of it. */
  const take = (batch: TailEvent[]): TailEvent[] => {
    let from = 0
    while (from < batch.length && batch[from].event.seq <= cursor) from++
    let to = from
    while (to < batch.length && !closed) if (batch[to++].event.type === 'session-closed') closed = true
    if (to > from) cursor = batch[to - 1].event.seq
    return from === 0 && to === batch.length ? batch : batch.slice(from, to)
  }
  // Subscribed before the catch-up: whatever is appended while it reads reaches the queue.
  const { head, off } = await source.subscribe(listener, options.pollMs)
  let lastEvent = Date.now()
  let lastYield = Date.now()
  /** Stored events after the cursor, up to `upTo` (or the store's end once a page comes back short), a page at a time. */
  async function* fromStore(upTo: number): AsyncGenerator<TailEvent[]> {
    while (cursor < upTo && !closed) {
      const lines = await source.read(cursor, PAGE)
      const page = take(lines.map(l => ({ event: JSON.parse(l.json) as SessionEvent, json: l.json })))
      if (page.length > 0) {
        lastEvent = lastYield = Date.now()
        yield page
      }
      if (lines.length < PAGE) return
    }
  }
  try {
    yield* fromStore(head)
    for (;;) {
      if (closed || signal?.aborted) return
      const first = queue[0]
      if (dropped || (first && first[0].event.seq > cursor + 1)) {
        // Fell behind the tail (or a gap before the first queued batch): the store has what is missing.
        const upTo = dropped ? Infinity : first[0].event.seq - 1
        dropped = false
        yield* fromStore(upTo)
        // What the store no longer holds (gc took it) cannot be caught up: go on from the tail.
        if (Number.isFinite(upTo) && cursor < upTo) cursor = upTo
        continue
      }
      if (first) {
        queue.shift()
        queued -= first.length
        const events = take(first)
        if (events.length > 0) {
          lastEvent = lastYield = Date.now()
          yield events
        }
        continue
      }
      const now = Date.now()
      if (idleMs > 0 && now - lastEvent >= idleMs) return
      if (heartbeatMs > 0 && now - lastYield >= heartbeatMs) {
        lastYield = now
        yield { type: 'heartbeat', at: now, after: cursor }
        continue
      }
      const wait = Math.min(
        heartbeatMs > 0 ? heartbeatMs - (now - lastYield) : Infinity,
        idleMs > 0 ? idleMs - (now - lastEvent) : Infinity,
      )
      await sleep.until(wait)
    }
  } finally {
    sleep.stop()
    off()
    signal?.removeEventListener('abort', onAbort)
  }
}

/**
 * An observer's wait for its next event, or its heartbeat or idle timeout. The timer is moved only
 * when it would fire too late: after a batch the next heartbeat is further away, so the timer armed
 * before stays and, firing early, is armed again once. A busy observer sets a timer once per
 * heartbeat, not once per batch (with 1,000 observers that was most of a fan-out's time).
 */
class Sleep {
  #wake: (() => void) | undefined
  #timer: ReturnType<typeof setTimeout> | undefined
  /** When the timer fires (Date.now()). */
  #at = Infinity

  /** Ends the current wait, if any. */
  wake(): void {
    this.#wake?.()
  }

  /** Waits for {@link wake}, or at most `ms` (Infinity: no timer). */
  until(ms: number): Promise<void> {
    const now = Date.now()
    if (Number.isFinite(ms) && now + ms < this.#at) {
      clearTimeout(this.#timer)
      this.#at = now + ms
      this.#timer = setTimeout(
        () => {
          this.#timer = undefined
          this.#at = Infinity
          this.wake()
        },
        Math.max(1, Math.ceil(ms)),
      )
    }
    return new Promise<void>(resolve => {
      this.#wake = () => {
        this.#wake = undefined
        resolve()
      }
    })
  }

  stop(): void {
    clearTimeout(this.#timer)
  }
}
