/** When to try again after `attempt` failures in a row (0 = the first retry): full jitter, capped. */
export interface Backoff {
  /** The first retry waits up to this long. Default 250 ms. */
  initialMs?: number
  /** No retry waits longer. Default 10 s. */
  maxMs?: number
}

/**
 * A random wait in [0, min(max, initial · 2^attempt)] ("full jitter"): clients that lost the same
 * server at the same moment do not all come back at the same moment.
 */
export function backoffDelay(attempt: number, backoff: Backoff = {}, random = Math.random): number {
  const initial = backoff.initialMs ?? 250
  const max = backoff.maxMs ?? 10_000
  return Math.round(random() * Math.min(max, initial * 2 ** Math.min(attempt, 30)))
}

/** Resolves after `ms`, or at once when `signal` aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise(resolve => {
    if (signal?.aborted) return resolve()
    const done = () => {
      clearTimeout(timer)
      signal?.removeEventListener('abort', done)
      resolve()
    }
    const timer = setTimeout(done, ms)
    signal?.addEventListener('abort', done, { once: true })
  })
}
