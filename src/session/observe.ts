import type { TailEvent, TailListener } from './log-tail.js'
import type { EventLine, Heartbeat, SessionEvent } from './types.js'

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
 * Yields exactly the events after `after`: stored ones first (the observer's own catch-up read),
 * then the session's shared tail, with no gap and no duplicate. The seam is held by the cursor:
 * the observer subscribes before its catch-up, reads from the store only up to the tail's head,
 * skips what it already yielded, and reads the store again only if it finds a gap (it fell more
 * than {@link MAX_QUEUED} events behind). Every event comes from the store, never from a writer's
 * memory. An idle observer costs no read. Ends after yielding `session-closed`, on the idle
 * timeout, or when `signal` aborts.
 */
export async function* observeLog(source: ObserveSource, options: ObserveOptions = {}): AsyncGenerator<SessionEvent | Heartbeat> {
  let cursor = Math.max(0, Math.floor(options.after ?? 0))
  const heartbeatMs = options.heartbeatMs ?? 15_000
  const idleMs = options.idleTimeoutMs ?? 0
  const { signal } = options
  let queue: TailEvent[] = []
  let dropped = false
  let wake: (() => void) | undefined
  const listener: TailListener = batch => {
    if (queue.length + batch.length > MAX_QUEUED) {
      queue = []
      dropped = true
    } else queue.push(...batch)
    wake?.()
  }
  const onAbort = () => wake?.()
  signal?.addEventListener('abort', onAbort)
  // Subscribed before the catch-up: whatever is appended while it reads reaches the queue.
  const { head, off } = await source.subscribe(listener, options.pollMs)
  let lastEvent = Date.now()
  let lastYield = Date.now()
  /** Stored events after the cursor, up to `upTo` (or the store's end once a page comes back short). */
  async function* fromStore(upTo: number): AsyncGenerator<SessionEvent> {
    while (cursor < upTo) {
      const lines = await source.read(cursor, PAGE)
      for (const l of lines) {
        if (l.seq <= cursor) continue
        const event = JSON.parse(l.json) as SessionEvent
        storedText.set(event, l.json)
        cursor = l.seq
        yield event
      }
      if (lines.length < PAGE) return
    }
  }
  try {
    for await (const e of fromStore(head)) {
      lastEvent = lastYield = Date.now()
      yield e
      if (e.type === 'session-closed' || signal?.aborted) return
    }
    for (;;) {
      if (signal?.aborted) return
      if (dropped || (queue.length > 0 && queue[0].event.seq > cursor + 1)) {
        // Fell behind the tail (or a gap before the first queued event): the store has what is missing.
        const upTo = dropped ? Infinity : queue[0].event.seq - 1
        dropped = false
        for await (const e of fromStore(upTo)) {
          lastEvent = lastYield = Date.now()
          yield e
          if (e.type === 'session-closed' || signal?.aborted) return
        }
        // What the store no longer holds (gc took it) cannot be caught up: go on from the tail.
        if (Number.isFinite(upTo) && cursor < upTo) cursor = upTo
        continue
      }
      const next = queue.shift()
      if (next) {
        if (next.event.seq <= cursor) continue
        cursor = next.event.seq
        storedText.set(next.event, next.json)
        lastEvent = lastYield = Date.now()
        yield next.event
        if (next.event.type === 'session-closed') return
        continue
      }
      const now = Date.now()
      if (idleMs > 0 && now - lastEvent >= idleMs) return
      if (heartbeatMs > 0 && now - lastYield >= heartbeatMs) {
        lastYield = now
        yield { type: 'heartbeat', at: now, after: cursor }
        continue
      }
      const due = [heartbeatMs > 0 ? heartbeatMs - (now - lastYield) : Infinity, idleMs > 0 ? idleMs - (now - lastEvent) : Infinity]
      const wait = Math.min(...due)
      await new Promise<void>(resolve => {
        const timer = Number.isFinite(wait) ? setTimeout(resolve, Math.max(1, wait)) : undefined
        wake = () => {
          clearTimeout(timer)
          resolve()
        }
      })
      wake = undefined
    }
  } finally {
    off()
    signal?.removeEventListener('abort', onAbort)
  }
}
