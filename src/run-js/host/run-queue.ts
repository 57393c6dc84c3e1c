import { abortError, failure, TIMEOUT } from './result.js'
import type { RunJsError, RunJsResult } from '../types.js'

/** Runs of one runner executing at once when `concurrency` is not given. */
export const DEFAULT_CONCURRENCY = 4
/** Runs that may wait for a slot when `maxQueued` is not given. */
export const DEFAULT_MAX_QUEUED = 1000

/** A taken slot; `release` frees it once (later calls do nothing). */
export interface Slot {
  release(): void
}

/** Name of the error a run gets when the queue is full. */
export const QUEUE_FULL = 'QueueFullError'

/** Validates a count option: a positive integer, or `Infinity` for no limit. */
export function resolveCount(value: number | undefined, fallback: number, name: string): number {
  if (value === undefined) return fallback
  if (value === Infinity) return value
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1) {
    throw new RangeError(`run_js: ${name} must be a positive integer or Infinity, got ${String(value)}`)
  }
  return value
}

interface Waiter {
  grant(slot: Slot): void
}

/**
 * At most `concurrency` holders at once; the rest wait in FIFO order. A waiter leaves the queue at
 * once when its signal aborts or its deadline passes, and nobody waits when `maxWaiting` are
 * already waiting. Deadlines are `performance.now()` times: a frozen or stepped wall clock does not
 * move them.
 *
 * One queue per runner bounds how many programs (and capped memories) one runner has live at once;
 * the Node worker pool uses one more for its threads.
 */
export class RunQueue {
  private running = 0
  /** Insertion-ordered: the first entry is the longest waiting. */
  private readonly waiters = new Set<Waiter>()

  constructor(
    readonly concurrency: number,
    readonly maxWaiting: number,
    /** What a slot is, for messages: "a slot of this runner (concurrency 4)", "a worker thread". */
    readonly slotName: string,
  ) {}

  /** Holders right now. */
  get active(): number {
    return this.running
  }

  /** Waiters right now. */
  get waiting(): number {
    return this.waiters.size
  }

  /**
   * Takes a slot, waiting in line if none is free. Resolves with the slot, or with the error that
   * ends the run instead: `AbortError` (the signal aborted, before or while waiting), `TimeoutError`
   * (the deadline passed while waiting), `QueueFullError` (too many waiting). Never rejects.
   */
  acquire(deadline: number, signal?: AbortSignal): Promise<Slot | RunJsError> {
    if (signal?.aborted) return Promise.resolve(abortError(signal))
    if (this.running < this.concurrency && this.waiters.size === 0) return Promise.resolve(this.take())
    if (this.waiters.size >= this.maxWaiting) {
      return Promise.resolve({
        name: QUEUE_FULL,
        code: 'EBUSY',
        message: `run_js: ${this.waiters.size} runs are already waiting for ${this.slotName} (at most ${this.maxWaiting} may wait); the program was not run, try again later`,
      })
    }
    const queuedAt = performance.now()
    return new Promise<Slot | RunJsError>((resolve) => {
      let timer: ReturnType<typeof setTimeout> | undefined
      const leave = (outcome: Slot | RunJsError) => {
        this.waiters.delete(waiter)
        clearTimeout(timer)
        signal?.removeEventListener('abort', onAbort)
        resolve(outcome)
      }
      const onAbort = () => leave(abortError(signal))
      const waiter: Waiter = { grant: (slot) => leave(slot) }
      this.waiters.add(waiter)
      signal?.addEventListener('abort', onAbort, { once: true })
      timer = setTimeout(() => {
        const waited = Math.round(performance.now() - queuedAt)
        leave({ name: TIMEOUT, message: `run_js timed out after waiting ${waited} ms for ${this.slotName}; the program never ran` })
      }, Math.max(0, deadline - performance.now()))
    })
  }

  private take(): Slot {
    this.running++
    let released = false
    return {
      release: () => {
        if (released) return
        released = true
        this.running--
        this.next()
      },
    }
  }

  private next(): void {
    while (this.running < this.concurrency) {
      const first = this.waiters.values().next()
      if (first.done) return
      this.waiters.delete(first.value)
      first.value.grant(this.take())
    }
  }
}

/** True for what {@link RunQueue.acquire} resolves to when the run must end instead. */
export function isRunError(outcome: Slot | RunJsError): outcome is RunJsError {
  return 'name' in outcome
}

/** Appends why a timed-out run had less time than its limit: part of it went to waiting. */
export function noteWait(error: RunJsError | undefined, waitedMs: number, slotName: string): void {
  if (!error || error.name !== TIMEOUT || waitedMs < 1) return
  error.message += ` (it first waited ${Math.round(waitedMs)} ms for ${slotName}; waiting counts against the time limit)`
}

/**
 * Waits for a slot of `queue`, then runs with what is left of `timeMs`: waiting counts against the
 * run's deadline. Never rejects.
 */
export async function runQueued(queue: RunQueue, timeMs: number, signal: AbortSignal | undefined, run: (timeMs: number) => Promise<RunJsResult>): Promise<RunJsResult> {
  const queuedAt = performance.now()
  const slot = await queue.acquire(queuedAt + timeMs, signal)
  if (isRunError(slot)) return failure(slot)
  try {
    const waited = performance.now() - queuedAt
    const left = Math.floor(timeMs - waited)
    if (left <= 0) return failure({ name: TIMEOUT, message: `run_js timed out after waiting ${Math.round(waited)} ms for ${queue.slotName}; the program never ran` })
    const result = await run(left)
    noteWait(result.error, waited, queue.slotName)
    return result
  } finally {
    slot.release()
  }
}
