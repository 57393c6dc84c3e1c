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
 * At most `concurrency` holders at once, and at most `perKey` of one key (a tenant: an owner, a
 * session); the rest wait. Waiters of one key are served in FIFO order, and keys take turns
 * (round-robin) as slots free up, so a key with many waiting runs cannot starve the others. A waiter
 * leaves the queue at once when its signal aborts or its deadline passes, and nobody waits when
 * `maxWaiting` are already waiting. Deadlines are `performance.now()` times: a frozen or stepped
 * wall clock does not move them.
 *
 * One queue per runner bounds how many programs (and capped memories) one runner has live at once;
 * the Node worker pool uses one more for its threads, shared fairly between tenants.
 */
export class RunQueue {
  private running = 0
  private readonly runningByKey = new Map<string, number>()
  /** Waiters by key, each insertion-ordered; the map's order is the round-robin order of the keys. */
  private readonly waitersByKey = new Map<string, Set<Waiter>>()
  private waiterCount = 0
  /** The key served last: the next turn starts after it. */
  private lastKey: string | undefined

  constructor(
    readonly concurrency: number,
    readonly maxWaiting: number,
    /** What a slot is, for messages: "a slot of this runner (concurrency 4)", "a worker thread". */
    readonly slotName: string,
    /** Slots one named key may hold at once (default: all of them); runs without a key are not capped. */
    readonly perKey: number = Infinity,
  ) {}

  /** Holders right now. */
  get active(): number {
    return this.running
  }

  /** Waiters right now. */
  get waiting(): number {
    return this.waiterCount
  }

  /**
   * Takes a slot for `key` (default: one shared key), waiting in line if none is free. Resolves with
   * the slot, or with the error that ends the run instead: `AbortError` (the signal aborted, before
   * or while waiting), `TimeoutError` (the deadline passed while waiting), `QueueFullError` (too
   * many waiting). Never rejects.
   */
  acquire(deadline: number, signal?: AbortSignal, key = ''): Promise<Slot | RunJsError> {
    if (signal?.aborted) return Promise.resolve(abortError(signal))
    // Free slots with waiters left means those waiters are at their key's cap: another key may pass them.
    if (this.running < this.concurrency && this.held(key) < this.capOf(key) && !this.waitersByKey.has(key))
      return Promise.resolve(this.take(key))
    if (this.waiterCount >= this.maxWaiting) {
      return Promise.resolve({
        name: QUEUE_FULL,
        code: 'EBUSY',
        message: `run_js: ${this.waiterCount} runs are already waiting for ${this.slotName} (at most ${this.maxWaiting} may wait); the program was not run, try again later`,
      })
    }
    const queuedAt = performance.now()
    return new Promise<Slot | RunJsError>(resolve => {
      let timer: ReturnType<typeof setTimeout> | undefined
      let line = this.waitersByKey.get(key)
      if (!line) this.waitersByKey.set(key, (line = new Set()))
      const leave = (outcome: Slot | RunJsError) => {
        if (line.delete(waiter)) this.waiterCount--
        if (line.size === 0 && this.waitersByKey.get(key) === line) this.waitersByKey.delete(key)
        clearTimeout(timer)
        signal?.removeEventListener('abort', onAbort)
        resolve(outcome)
      }
      const onAbort = () => leave(abortError(signal))
      const waiter: Waiter = { grant: slot => leave(slot) }
      line.add(waiter)
      this.waiterCount++
      signal?.addEventListener('abort', onAbort, { once: true })
      timer = setTimeout(
        () => {
          const waited = Math.round(performance.now() - queuedAt)
          leave({
            name: TIMEOUT,
            message: `run_js timed out after waiting ${waited} ms for ${this.slotName}; the program never ran`,
          })
        },
        Math.max(0, deadline - performance.now()),
      )
    })
  }

  /** Runs without a key share the default one, which is not capped: the cap is between named tenants. */
  private capOf(key: string): number {
    return key === '' ? Infinity : this.perKey
  }

  private held(key: string): number {
    return this.runningByKey.get(key) ?? 0
  }

  private take(key: string): Slot {
    // The key served last, by the queue or at once: its next waiter goes to the back of the turns.
    this.lastKey = key
    this.running++
    this.runningByKey.set(key, this.held(key) + 1)
    let released = false
    return {
      release: () => {
        if (released) return
        released = true
        this.running--
        const left = this.held(key) - 1
        if (left > 0) this.runningByKey.set(key, left)
        else this.runningByKey.delete(key)
        this.next()
      },
    }
  }

  /** Grants free slots, one key's turn at a time, starting after the key served last. */
  private next(): void {
    while (this.running < this.concurrency) {
      const key = this.nextKey()
      if (key === undefined) return
      const line = this.waitersByKey.get(key)!
      const first = line.values().next().value!
      first.grant(this.take(key))
    }
  }

  /** The first key after `lastKey` (in round-robin order) with a waiter and room under its cap. */
  private nextKey(): string | undefined {
    const keys = [...this.waitersByKey.keys()]
    const after = this.lastKey === undefined ? -1 : keys.indexOf(this.lastKey)
    for (let i = 1; i <= keys.length; i++) {
      const key = keys[(after + i + keys.length) % keys.length]
      if (this.held(key) < this.capOf(key)) return key
    }
    return undefined
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
export async function runQueued(
  queue: RunQueue,
  timeMs: number,
  signal: AbortSignal | undefined,
  run: (timeMs: number) => Promise<RunJsResult>,
  key?: string,
): Promise<RunJsResult> {
  const queuedAt = performance.now()
  const slot = await queue.acquire(queuedAt + timeMs, signal, key)
  if (isRunError(slot)) return failure(slot)
  try {
    const waited = performance.now() - queuedAt
    const left = Math.floor(timeMs - waited)
    if (left <= 0)
      return failure({
        name: TIMEOUT,
        message: `run_js timed out after waiting ${Math.round(waited)} ms for ${queue.slotName}; the program never ran`,
      })
    const result = await run(left)
    noteWait(result.error, waited, queue.slotName)
    // Said in the result (and so in the run_js tool's event): the program waited before it ran.
    if (waited >= 1) result.queuedMs = Math.round(waited) + (result.queuedMs ?? 0)
    return result
  } finally {
    slot.release()
  }
}
