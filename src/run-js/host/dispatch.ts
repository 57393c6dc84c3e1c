import type { QuickJSContext, QuickJSHandle, Scope as HandleScope } from 'quickjs-emscripten-core'
import type { GuestDeferred } from '../engine/deferred.js'
import type { Vfs } from '../../vfs/types.js'
import type { RunClock } from '../engine/clock.js'
import { installGuestGlobals, type HostReturn } from '../guest/bootstrap.js'
import type { Answer, GuestFunction, VfsCall } from '../guest/guest-api.js'
import { toGuestError } from '../guest/host-error.js'
import { HelperFailed, type Intrinsics } from '../guest/intrinsics.js'
import { GuestValues, Refused, type GuestValue } from '../guest/values.js'
import type { GuestError } from '../types.js'
import { LogBuffer } from './logs.js'
import type { Journal } from './journal.js'
import { isRunJsSuspension } from './suspension.js'
import { validateInput, type BoundTool } from './tools.js'
import { installDeterminism } from '../guest/determinism.js'

/** What a vfs function's errors call it and its arguments (`vfs.read: the path`), made once per function. */
const LABELS = new WeakMap<GuestFunction, { where: string; what: string[] }>()
function labelsOf(f: GuestFunction): { where: string; what: string[] } {
  let labels = LABELS.get(f)
  if (!labels) {
    const where = `vfs.${f.name}`
    LABELS.set(f, (labels = { where, what: f.args.map(spec => `${where}: the ${spec.name}`) }))
  }
  return labels
}

/** What a dispatch needs from its program run. */
export interface DispatchOptions {
  vfs?: Vfs
  /** The workspace's synchronous text reader (see src/vfs/read-now.ts); `vfs.read` then answers at once. */
  readText?: (path: string) => string | undefined
  /** The runner's archive of programs (left out of the guest's glob and grep). */
  archiveDir?: string
  tools: ReadonlyMap<string, BoundTool>
  /** The run's clock: host work gets its signal and deadline. */
  clock: RunClock
  /** The run's write budget (host/write-budget.ts), charged by `vfs.write`. */
  writes?: VfsCall['writes']
  /** The guest's `vfs` calls are done elsewhere (a worker thread's host: see guest-api.ts). */
  remote?: VfsCall['remote']
  logChars: number
  /**
   * Largest value (UTF-8 bytes) crossing into or out of the guest at once. quickjs-emscripten copies
   * strings and bytes into the capped memory without checking malloc, and the host copies what the
   * guest sends: both stay well under the memory cap.
   */
  maxBytes: number
  /** A host call settled its guest promise: the run should execute pending jobs. */
  onSettled: () => void
  /** An exception came out of wasm while answering the guest: the instance cannot be trusted. */
  onHostError: (error: unknown) => void
  /** A suspendable run's journal: host calls are replayed from it or recorded in it. */
  journal?: Journal
  /**
   * Without a journal here, time and randomness of a run journaled elsewhere (an executor's thread:
   * the journal is on the host's side): `Math.random` from `seed`, the clock from `now`.
   */
  determinism?: { seed: number; now: () => number }
  /** A call of a suspendable run asks a person: the program parks (no guest code runs any more). */
  onSuspend?: (call: string, request: unknown) => void
  /** The replay left the journal: the run fails with this error and nothing more is done. */
  onDiverged?: (error: GuestError) => void
}

/**
 * The host half of the guest API for one context: it installs `vfs`, `console` and `external_*`
 * (guest/bootstrap.ts), takes the guest's arguments (guest/values.ts), does the work and answers.
 * Every asynchronous call gets a guest promise this dispatch owns until it settles or the run closes
 * it; a call completing after `close()` touches nothing.
 */
export class HostDispatch {
  readonly logs: LogBuffer
  /** The membrane's value conversion for this context (the program run reads its result through it). */
  readonly values: GuestValues
  private readonly inFlight = new Set<GuestDeferred>()
  private closed = false
  /** The program parked on a call that asks: no answer reaches the guest any more, calls are ignored. */
  private parked = false
  /** Host work still running (a parked run waits for it, so that its outcome is journaled). */
  private readonly working = new Set<Promise<unknown>>()
  private readonly vfsCall: VfsCall | undefined
  private readonly journal: Journal | undefined

  constructor(
    private readonly ctx: QuickJSContext,
    private readonly handles: HandleScope,
    private readonly k: Intrinsics,
    private readonly options: DispatchOptions,
  ) {
    this.logs = new LogBuffer(options.logChars)
    this.values = new GuestValues(ctx, handles, k, options.maxBytes)
    this.journal = options.journal
    this.vfsCall = options.vfs
      ? {
          vfs: options.vfs,
          clock: options.clock,
          readText: options.readText,
          archiveDir: options.archiveDir,
          writes: options.writes,
          remote: options.remote,
        }
      : undefined
  }

  /** Defines the guest globals. Runs before any guest code. */
  install(): void {
    const call = this.vfsCall
    // No closure per call: these run on every host call of the program.
    installGuestGlobals(this.ctx, this.handles, this.k, {
      vfs: call ? (f, args) => this.entry(this.vfsFunction, f, args) : undefined,
      console: args => this.entry(this.log, args, undefined),
      tools: [...this.options.tools.values()].map(tool => ({
        globalName: tool.globalName,
        call: (input: QuickJSHandle | undefined) => this.entry(this.toolFunction, tool, input),
      })),
    })
    const journal = this.journal
    if (journal) installDeterminism(this.ctx, this.handles, journal.seed, () => this.entry(this.now, journal, undefined))
    const elsewhere = this.options.determinism
    if (!journal && elsewhere)
      installDeterminism(this.ctx, this.handles, elsewhere.seed, () => this.entry(this.elsewhereNow, elsewhere, undefined))
  }

  /** Resolves once no host work started for the guest is running (its outcomes are journaled by then). */
  async quiesce(): Promise<void> {
    while (this.working.size > 0) await Promise.allSettled([...this.working])
  }

  /** Number of host calls whose guest promise is still open. */
  get pending(): number {
    return this.inFlight.size
  }

  /** Drops every open guest promise. Calls completing later are ignored. */
  close(): void {
    this.closed = true
    for (const deferred of this.inFlight) if (deferred.alive) deferred.dispose()
    this.inFlight.clear()
  }

  /**
   * Every host function runs through here: an exception out of wasm poisons the run, and nothing
   * else the host does may throw into QuickJS's callback (which would print and return null).
   */
  private entry<A, B>(body: (this: HostDispatch, a: A, b: B) => HostReturn, a: A, b: B): HostReturn {
    if (this.closed) return undefined
    // Parked: what the guest still does before it is interrupted reaches nothing (and is not journaled).
    if (this.parked) return this.neverSettled()
    // Once the run is stopped no host function runs guest helpers: an interrupt landing inside one
    // comes back to the guest as an ordinary, catchable error (QuickJS loses "uncatchable" when the
    // host rethrows it), so `for (;;) try { console.log(o) } catch {}` looped forever, the host blocked.
    if (this.options.clock.stop !== undefined) return undefined
    try {
      return body.call(this, a, b)
    } catch (error) {
      // A helper that could not run (the run was stopped, memory is gone) is the guest's failure.
      if (error instanceof HelperFailed) return { error: this.values.error({ name: 'InternalError', message: error.message }) }
      this.hostError(error)
      return undefined
    }
  }

  private vfsFunction(f: GuestFunction, handles: QuickJSHandle[]): HostReturn {
    const call = this.vfsCall!
    const { where, what } = labelsOf(f)
    const args: unknown[] = []
    for (let i = 0; i < f.args.length; i++) {
      const taken = this.values.take(handles[i], f.args[i].kind, what[i], where)
      if (taken instanceof Refused) return this.rejected(taken.error)
      args.push(taken)
    }
    const turn = this.journal?.next(where, args)
    if (turn && !('live' in turn)) return this.replayed(turn)
    const index = turn?.live
    if (f.now) {
      let answer: Answer | undefined
      try {
        answer = f.now(call, args)
      } catch (error) {
        if (isRunJsSuspension(error)) return this.ask(index, where, error.request)
        const e = toGuestError(error)
        if (index !== undefined) this.journal!.record(index, { error: e })
        return this.rejected(e)
      }
      if (answer) {
        if (index !== undefined) this.journal!.record(index, { answer })
        return this.resolved(answer)
      }
    }
    // The guest promise first: if QuickJS cannot make one, no work has started.
    const deferred = this.openPromise()
    return this.later(deferred, f.call(call, args), undefined, where, index)
  }

  /** A call answered from the journal, or the end of a replay that left it. */
  private replayed(turn: Exclude<ReturnType<Journal['next']>, { live: number }>): HostReturn {
    if ('replay' in turn) return this.resolved(turn.replay)
    if ('replayError' in turn) return this.rejected(turn.replayError)
    this.parked = true
    this.options.onDiverged?.(turn.diverged)
    return this.neverSettled()
  }

  /** `Date.now()` of a run whose journal is kept elsewhere (a worker thread's host records the readings). */
  private elsewhereNow(clock: { now(): number }, _unused?: undefined): HostReturn {
    return this.ctx.newNumber(clock.now())
  }

  /** `Date.now()` of a journaled run: the recorded time on replay, else the host's, recorded. */
  private now(journal: Journal, _unused?: undefined): HostReturn {
    const turn = journal.next('Date.now', [])
    if ('diverged' in turn) return this.replayed(turn)
    let time: number
    if ('replay' in turn && turn.replay.kind === 'json' && typeof turn.replay.value === 'number') time = turn.replay.value
    else {
      time = Date.now()
      if ('live' in turn) journal.record(turn.live, { answer: { kind: 'json', value: time } })
    }
    return this.ctx.newNumber(time)
  }

  /**
   * A call asks a person. A suspendable run parks the program here (the call's promise never
   * settles in this run); otherwise, or past the journal's bound, the call fails with SuspendError.
   */
  private ask(index: number | undefined, call: string, request: unknown): HostReturn {
    const refused = this.refusal(index, call, request)
    if (refused) return this.rejected(refused)
    this.park(call, request)
    return this.neverSettled()
  }

  /** Why the call at `index` cannot park the program, if it cannot; else it is journaled as the one that asks. */
  private refusal(index: number | undefined, call: string, request: unknown): GuestError | undefined {
    if (index !== undefined) return this.journal!.ask(index, request)
    return {
      name: 'SuspendError',
      message: `${call} waits for a person, but this run cannot wait for an answer (it was not started as suspendable)`,
    }
  }

  private park(call: string, request: unknown): void {
    if (this.parked) return
    this.parked = true
    this.options.onSuspend?.(call, request)
  }

  /** A guest promise this dispatch owns until it settles or the run closes it. */
  private openPromise(): GuestDeferred {
    const deferred = this.k.newPromise()
    this.inFlight.add(deferred)
    return deferred
  }

  /** A guest promise that stays pending for the rest of this run (disposed at close). */
  private neverSettled(): QuickJSHandle {
    // Returned as is: quickjs-emscripten takes its own reference and disposes this one (no dup per call).
    return this.openPromise().handle
  }

  private toolFunction(tool: BoundTool, input: QuickJSHandle | undefined): HostReturn {
    const taken = this.values.take(input, 'input', `the input of ${tool.globalName}`, tool.globalName)
    if (taken instanceof Refused) return this.rejected(taken.error)
    const signal = this.options.clock.signal
    const turn = this.journal?.next(tool.globalName, [taken])
    if (turn && !('live' in turn)) return this.replayed(turn)
    const deferred = this.openPromise()
    const work = async (): Promise<Answer> => {
      const value = await validateInput(tool, taken)
      const output = await tool.execute(value, { signal })
      return output === undefined ? { kind: 'none' } : { kind: 'json', value: output }
    }
    return this.later(deferred, work(), `${tool.globalName} returned a value that`, tool.globalName, turn?.live)
  }

  private log(handles: QuickJSHandle[], _unused?: undefined): HostReturn {
    const parts: string[] = []
    for (const h of handles) {
      const type = this.k.typeof(h)
      if (type === 'string') {
        const s = this.values.readString(h, 'a console argument')
        parts.push(s instanceof Refused ? '[too large to log]' : s)
      } else if (type === 'number' || type === 'boolean' || type === 'undefined') parts.push(String(this.ctx.dump(h)))
      else {
        const shown = this.ctx.callFunction(this.k.helper('show'), this.ctx.undefined, h)
        if (shown.error) return { error: shown.error } // interrupted: the guest sees it as a throw
        const s = this.values.readString(shown.value, 'a console argument')
        shown.value.dispose()
        parts.push(s instanceof Refused ? '[too large to log]' : s)
      }
    }
    this.logs.push('log', parts.join(' '))
    return undefined
  }

  /** An already-settled guest promise. */
  private resolved(answer: Answer): HostReturn {
    const value = this.values.toGuest(answer)
    const r = this.k.call(value.error ? 'Promise.reject' : 'Promise.resolve', this.k.get('Promise'), value.handle)
    value.handle.dispose()
    // Only when the run was stopped: the guest sees the interrupt.
    return r.error ? { error: r.error } : r.value
  }

  private rejected(error: GuestError | { guest: QuickJSHandle }): HostReturn {
    const handle = 'guest' in error ? error.guest.dup() : this.values.error(error)
    const r = this.k.call('Promise.reject', this.k.get('Promise'), handle)
    handle.dispose()
    return r.error ? { error: r.error } : r.value
  }

  /**
   * A pending guest promise, settled when `work` does. In a journaled run (`index` defined) the
   * outcome is recorded first, and a work that asks a person parks the program instead.
   */
  private later(deferred: GuestDeferred, promise: Promise<Answer>, whatReturned?: string, call = '', index?: number): QuickJSHandle {
    const journal = this.journal
    // One reaction per call (no chained catch): this is the per-call path of every asynchronous host call.
    const done = promise.then(
      answer => {
        try {
          if (index !== undefined) journal!.record(index, { answer })
          this.settle(deferred, answer, whatReturned)
        } catch (error) {
          this.hostError(error)
        }
      },
      (error: unknown) => {
        try {
          if (isRunJsSuspension(error)) {
            const refused = this.refusal(index, call, error.request)
            if (refused) return this.settleRejected(deferred, refused)
            return this.park(call, error.request)
          }
          const e = toGuestError(error)
          if (index !== undefined) journal!.record(index, { error: e })
          this.settleRejected(deferred, e)
        } catch (failure) {
          this.hostError(failure)
        }
      },
    )
    // A parked program waits for these to be journaled (quiesce); other runs need not track them.
    if (journal) {
      this.working.add(done)
      void done.finally(() => this.working.delete(done))
    }
    // Returned as is: quickjs-emscripten takes its own reference and disposes this one (no dup per call).
    return deferred.handle
  }

  private settleRejected(deferred: GuestDeferred, error: GuestError): void {
    this.settle(deferred, undefined, undefined, error)
  }

  /** Settles `deferred` with `answer` (as a guest value), or rejects it with `error`. */
  private settle(deferred: GuestDeferred, answer: Answer | undefined, whatReturned?: string, error?: GuestError): void {
    if (this.closed || this.parked || !deferred.alive) return
    this.inFlight.delete(deferred)
    try {
      let made: GuestValue
      try {
        made = error ? { handle: this.values.error(error), error: true } : this.values.toGuest(answer!, whatReturned)
      } catch (error) {
        // A helper that could not run (the run was stopped, memory is gone): the call fails, not the host.
        if (!(error instanceof HelperFailed)) throw error
        made = { handle: this.values.error({ name: 'InternalError', message: error.message }), error: true }
      }
      if (made.error) deferred.reject(made.handle)
      else deferred.resolve(made.handle)
      made.handle.dispose()
      deferred.dispose()
    } catch (error) {
      // Thrown from inside wasm: nothing more may touch this context.
      this.hostError(error)
      return
    }
    this.options.onSettled()
  }

  private hostError(error: unknown): void {
    try {
      this.options.onHostError(error)
    } catch {
      // The run is ending anyway; nothing may escape into the host's event loop.
    }
  }
}
