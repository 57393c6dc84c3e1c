import type { EventLog } from './event-log.js'
import type { Heartbeat, SessionEvent } from './types.js'

/** Options of `observe`. */
export interface ObserveOptions {
  /** Yield events with a sequence above this (0 or absent: from the start). */
  after?: number
  /** Yield a {@link Heartbeat} after this long without an event. Default 15 s; 0 disables. */
  heartbeatMs?: number
  /** End after this long without an event. Default: never. */
  idleTimeoutMs?: number
  /** Look at the store this often even without a signal (another process appended). Default 1 s. */
  pollMs?: number
  /** Ends the iteration. */
  signal?: AbortSignal
}

const PAGE = 1000

/**
 * Yields exactly the events after `after`: stored ones first, then new ones as they become
 * durable, with no gap and no duplicate. Every event comes from the store (never from a writer's
 * memory), so an observer never sees an event that could still be lost. Ends after yielding
 * `session-closed`, on the idle timeout, or when `signal` aborts.
 */
export async function* observeLog(log: EventLog, subscribe: (wake: () => void) => () => void, options: ObserveOptions = {}): AsyncGenerator<SessionEvent | Heartbeat> {
  let cursor = Math.max(0, Math.floor(options.after ?? 0))
  const heartbeatMs = options.heartbeatMs ?? 15_000
  const pollMs = Math.max(10, options.pollMs ?? 1000)
  const idleMs = options.idleTimeoutMs ?? 0
  const { signal } = options
  let woken = true
  let wake: (() => void) | undefined
  // Subscribed before the first read, so a commit between the read and the wait is not missed.
  const unsubscribe = subscribe(() => {
    woken = true
    wake?.()
  })
  const onAbort = () => wake?.()
  signal?.addEventListener('abort', onAbort)
  let lastEvent = Date.now()
  let lastYield = Date.now()
  let lastRead = 0
  try {
    for (;;) {
      if (signal?.aborted) return
      if (woken || Date.now() - lastRead >= pollMs) {
        woken = false
        lastRead = Date.now()
        for (;;) {
          const events = await log.read(cursor, PAGE)
          for (const e of events) {
            // The store gives each sequence once; the cursor guards against a page overlapping the next.
            if (e.seq <= cursor) continue
            cursor = e.seq
            lastEvent = lastYield = Date.now()
            yield e
            if (e.type === 'session-closed') return
            if (signal?.aborted) return
          }
          if (events.length < PAGE) break
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
      const due = [pollMs - (now - lastRead), heartbeatMs > 0 ? heartbeatMs - (now - lastYield) : Infinity, idleMs > 0 ? idleMs - (now - lastEvent) : Infinity]
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.max(1, Math.min(...due)))
        wake = () => {
          clearTimeout(timer)
          resolve()
        }
      })
      wake = undefined
    }
  } finally {
    unsubscribe()
    signal?.removeEventListener('abort', onAbort)
  }
}
