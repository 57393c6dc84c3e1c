import type { ResolvedLimits } from './limits.js'

/** Why a run was stopped from outside. */
export type Stop = 'timeout' | 'budget' | 'abort'

/**
 * The one clock of a run: wall-clock deadline, interrupt budget and the caller's abort signal. Guest
 * code, host calls made for the guest and archiving count against it (loading the TypeScript loader,
 * the host's own set-up, does not: {@link RunClock.outside}), and
 * nothing settles as a success once it has run out ({@link RunClock.check}).
 *
 * Host work gets {@link RunClock.signal}, aborted when the run stops or ends, and
 * {@link RunClock.deadline} for work that cannot be interrupted by a signal (a search loop).
 */
export class RunClock {
  /** Why the run was stopped, once it was. */
  stop: Stop | undefined
  /** Absolute time (ms since the epoch, as `Date.now()`) after which the run has failed. */
  deadline = Infinity
  private interrupts = 0
  private budget = Infinity
  private started = false
  /** Made when host work first asks for {@link signal} (most runs never do: it costs an event dispatch at the end). */
  private ended: AbortController | undefined
  /** Why the run stopped or ended, for a signal made after that. */
  private endReason: Stop | 'ended' | undefined
  private timer: ReturnType<typeof setTimeout> | undefined
  private onAbort: (() => void) | undefined
  private listeners: Array<(stop: Stop) => void> = []

  constructor(
    private readonly limits: Pick<ResolvedLimits, 'timeMs' | 'interruptBudget'>,
    readonly callerSignal: AbortSignal | undefined,
  ) {}

  /** Aborted when the run stops or ends: hand it to host work done for the guest. */
  get signal(): AbortSignal {
    if (!this.ended) {
      this.ended = new AbortController()
      if (this.endReason !== undefined) this.ended.abort(this.endReason)
    }
    return this.ended.signal
  }

  /**
   * Starts the deadline and the budget. Before this only the host's own set-up runs, and the
   * interrupt handler lets it finish. The timer waits for {@link arm}: a run that never waits for
   * the host (most small runs) is stopped by the interrupt handler and {@link check} alone.
   */
  start(): void {
    if (this.started) return
    this.started = true
    this.interrupts = 0
    this.budget = this.limits.interruptBudget
    this.deadline = Date.now() + this.limits.timeMs
    const signal = this.callerSignal
    if (signal) {
      this.onAbort = () => this.fire('abort')
      if (signal.aborted) this.fire('abort')
      else signal.addEventListener('abort', this.onAbort, { once: true })
    }
  }

  /**
   * Arms the timer that stops a waiting run at its deadline (the interrupt handler only runs while guest
   * code runs): call it before the run first waits for anything (host work, a guest promise).
   */
  arm(): void {
    if (!this.started || this.stop || this.timer !== undefined || this.endReason !== undefined) return
    this.timer = setTimeout(() => this.fire('timeout'), this.remaining())
  }

  /**
   * Runs host set-up that is not the program's time (loading the TypeScript loader once: seconds in a
   * busy browser): the deadline and its timer move by as long as it took. The caller's abort still stops
   * it, and so does `maxMs` (set-up that never finishes is a timeout too).
   */
  async outside<T>(work: Promise<T>, maxMs: number): Promise<T> {
    if (!this.started || this.stop) return work
    const from = Date.now()
    clearTimeout(this.timer)
    this.timer = setTimeout(() => this.fire('timeout'), maxMs)
    try {
      return await work
    } finally {
      if (!this.stop) {
        clearTimeout(this.timer)
        this.deadline += Date.now() - from
        this.timer = setTimeout(() => this.fire('timeout'), this.remaining())
      }
    }
  }

  /** Calls `fn` once when the run is stopped from outside (at once if it already was). */
  onStop(fn: (stop: Stop) => void): void {
    if (this.stop) fn(this.stop)
    else this.listeners.push(fn)
  }

  /** For QuickJS's interrupt handler: counts one check against the budget, then looks at the clock. */
  tick(): boolean {
    if (this.stop) return true
    if (!this.started) return false
    if (++this.interrupts > this.budget) this.fire('budget')
    else this.check()
    return this.stop !== undefined
  }

  /** Looks at the wall clock and the caller's signal now; true once the run is stopped. */
  check(): boolean {
    if (this.stop) return true
    if (!this.started) return false
    if (Date.now() > this.deadline) this.fire('timeout')
    else if (this.callerSignal?.aborted) this.fire('abort')
    return this.stop !== undefined
  }

  /** Milliseconds left before the deadline (never negative). */
  remaining(): number {
    return Math.max(0, this.deadline - Date.now())
  }

  private fire(stop: Stop): void {
    if (this.stop) return
    this.stop = stop
    this.endReason ??= stop
    this.ended?.abort(stop)
    for (const fn of this.listeners.splice(0)) fn(stop)
  }

  /** Stops the timer and the listener, and aborts {@link signal}: the run is over. */
  end(): void {
    clearTimeout(this.timer)
    if (this.onAbort) this.callerSignal?.removeEventListener('abort', this.onAbort)
    this.listeners = []
    this.endReason ??= 'ended'
    if (this.ended && !this.ended.signal.aborted) this.ended.abort('ended')
  }
}
