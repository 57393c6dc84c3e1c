import { Scope as HandleScope, type QuickJSContext, type QuickJSHandle, type QuickJSRuntime } from 'quickjs-emscripten-core'
import { HostDispatch } from './host/dispatch.js'
import type { RunClock } from './engine/clock.js'
import { PROGRAM_FILE, readGuestError } from './guest/guest-error.js'
import { HelperFailed, Intrinsics } from './guest/intrinsics.js'
import { usedBytes, type Instance, type InstanceHealth } from './engine/pool.js'
import { installModuleLoader, type ModuleGraph } from './host/modules.js'
import type { Journal } from './host/journal.js'
import { WriteBudget } from './host/write-budget.js'
import type { RunJsError, RunJsImports } from './types.js'
import { yieldToHost } from './engine/yield-to-host.js'
import { maxCrossingBytes, UNDEFINED_RESULT, type ProgramEnv, type ProgramOutcome } from './program-contract.js'

/**
 * One program run: one program in one fresh QuickJS context, the engine half of a run. Every QuickJS
 * handle it makes is owned by {@link handles} (quickjs-emscripten's `Scope`, a handle scope: nothing
 * to do with a store's scope) and freed on one path ({@link teardown}); time is the run's
 * {@link RunClock}; archiving and result shaping happen outside (run.ts).
 */
export class ProgramRun {
  private readonly handles = new HandleScope()
  private readonly rt: QuickJSRuntime
  private readonly ctx: QuickJSContext
  private readonly k: Intrinsics
  private readonly dispatch: HostDispatch
  /** Set once the outcome is known: from then on no guest code may run. */
  private finished = false
  poisoned = false
  /** Milliseconds spent inside QuickJS (compiling, the program, its jobs): the run's CPU time. */
  cpuMs = 0
  /** What poisoned the instance, for the run's error message. */
  hostError: unknown
  private outOfMemory = false
  /** An interrupt landed inside a promise job: QuickJS may have leaked references (see teardown). */
  private interruptedInJob = false
  /** Reading the final error: guest getters get a small budget of their own. */
  private reading = false
  private readingChecks = 0
  private settle: ((o: ProgramOutcome) => void) | undefined
  private promise: QuickJSHandle | undefined
  private pumpQueued = false
  /** This run set the runtime's module loader (removed at teardown). */
  private modules = false
  private pumpsSinceYield = 0
  private lastYield = performance.now()

  constructor(
    private readonly env: ProgramEnv,
    private readonly instance: Instance,
    private readonly clock: RunClock,
    readonly journal?: Journal, // a suspendable run's
  ) {
    const { limits } = env
    this.rt = instance.runtime ??= instance.module.newRuntime()
    this.rt.setMemoryLimit(limits.memoryBytes)
    this.rt.setMaxStackSize(limits.stackBytes)
    this.rt.setInterruptHandler(() => this.shouldInterrupt())
    try {
      this.ctx = this.handles.manage(this.rt.newContext())
      this.k = new Intrinsics(this.ctx, this.handles, true, instance)
      this.dispatch = new HostDispatch(this.ctx, this.handles, this.k, {
        vfs: env.vfs,
        readText: env.readText,
        archiveDir: env.archiveDir,
        tools: env.tools,
        clock,
        writes: new WriteBudget(limits),
        logChars: limits.logChars,
        maxBytes: maxCrossingBytes(limits.memoryBytes),
        onSettled: () => this.queuePump(),
        onHostError: error => this.poison(error),
        journal,
        ...env.elsewhere,
        onSuspend: (call, request) => this.settle?.({ kind: 'suspended', call, request }),
        onDiverged: error => this.settle?.({ kind: 'error', error }),
      })
      this.dispatch.install()
    } catch (error) {
      this.poison(error)
      throw error
    }
  }

  logs(): string[] {
    return this.dispatch.logs.result()
  }

  /** Waits for the host work a parked program started, so that the journal holds its outcome. */
  quiesce(): Promise<void> {
    return this.dispatch.quiesce()
  }

  private shouldInterrupt(): boolean {
    if (this.reading) return ++this.readingChecks > READING_BUDGET
    if (this.finished) return true
    return this.clock.tick()
  }

  private poison(error: unknown): void {
    this.poisoned = true
    this.hostError ??= error
    this.settle?.({ kind: 'host', error })
  }

  /** Runs a host→QuickJS call; an exception thrown from inside wasm poisons the instance. */
  private guard<T>(fn: () => T): T | undefined {
    if (this.poisoned) return undefined
    const started = performance.now()
    try {
      return fn()
    } catch (error) {
      this.poison(error)
      return undefined
    } finally {
      this.cpuMs += performance.now() - started
    }
  }

  /** Why evalCode gave no value: the engine crashed, the clock stopped it, or the guest's own error. */
  private compileError(result: { error?: QuickJSHandle } | undefined): RunJsError {
    if (!result?.error) return { name: 'InternalError', message: 'the engine crashed while compiling' }
    const error = this.clock.stop ? { name: 'InternalError', message: 'stopped' } : readGuestError(this.ctx, result.error)
    result.error.dispose()
    return error
  }

  /** Compiles the wrapped program to the async function it defines, or the guest's error. */
  compile(source: string): { fn: QuickJSHandle } | { error: RunJsError } {
    const result = this.guard(() => this.k.evalCode(source, PROGRAM_FILE))
    if (!result || result.error) return { error: this.compileError(result) }
    if (this.k.typeof(result.value) !== 'function') {
      // The source broke out of the wrapper (e.g. `}); x; (() => {`): refuse it rather than guess.
      result.value.dispose()
      return { error: { name: 'SyntaxError', message: 'the program is not a function body (unbalanced brackets?)' } }
    }
    return { fn: this.handles.manage(result.value) }
  }

  /**
   * Compiles a program that imports (host/modules.ts): `source` is a module whose default export is
   * the program's function (or, `asModule` false, a function body that only uses `import()`); QuickJS loads its imports from `graph`, read ahead, and runs their top
   * level now (guest code, under the run's clock).
   */
  compileModule(
    source: string,
    graph: ModuleGraph,
    imports: RunJsImports,
    asModule: boolean,
  ): { fn: QuickJSHandle } | { error: RunJsError } {
    installModuleLoader(this.rt, graph, imports)
    this.modules = true
    if (!asModule) return this.compile(source) // only `import()`: a function body still
    const result = this.guard(() => this.ctx.evalCode(source, PROGRAM_FILE, { type: 'module' }))
    if (!result || result.error) return { error: this.compileError(result) }
    const namespace = this.handles.manage(result.value)
    // A module graph with top-level await evaluates to a promise for the namespace.
    const state = this.guard(() => {
      this.rt.executePendingJobs().dispose()
      return this.ctx.getPromiseState(namespace)
    })
    if (!state) return { error: { name: 'InternalError', message: 'the engine crashed while loading modules' } }
    if (state.type === 'pending')
      return { error: { name: 'ImportError', message: 'a module awaits at its top level, which run_js does not wait for' } }
    if (state.type === 'rejected') {
      const error = readGuestError(this.ctx, state.error)
      state.error.dispose()
      return { error }
    }
    const value = state.value === namespace ? namespace : this.handles.manage(state.value)
    const fn = this.handles.manage(this.ctx.getProp(value, 'default'))
    if (this.ctx.typeof(fn) !== 'function')
      return { error: { name: 'SyntaxError', message: 'the program is not a function body (unbalanced brackets?)' } }
    return { fn }
  }

  /** Calls the program and pumps its jobs until its promise settles or the clock stops it. */
  execute(program: QuickJSHandle): Promise<ProgramOutcome> {
    return new Promise<ProgramOutcome>(resolve => {
      let settled = false
      this.settle = outcome => {
        if (settled) return
        settled = this.finished = true
        resolve(outcome)
      }
      if (this.poisoned) return this.settle({ kind: 'host', error: this.hostError })
      const started = this.guard(() => this.k.callFunction(program, this.ctx.undefined))
      if (!started) return
      if (started.error) return this.settleWithError(started.error)
      this.promise = this.handles.manage(started.value)
      this.pump()
      if (settled) return
      // Still pending: a waiting guest (a promise that never settles, a tool that never returns) is
      // ended by the clock's timer (a stop while guest code runs is seen by the pump itself).
      this.clock.arm()
      this.clock.onStop(stop => this.settle?.({ kind: 'stopped', stop }))
    })
  }

  private settleWithError(handle: QuickJSHandle): void {
    const error = this.readFinalError(handle)
    handle.dispose()
    if (this.clock.stop) return this.settle!({ kind: 'stopped', stop: this.clock.stop })
    if (this.isOutOfMemory(error)) {
      this.outOfMemory = true
      error.message = `out of memory (this run may use ${mib(this.env.limits.memoryBytes)})`
    }
    this.settle!({ kind: 'error', error })
  }

  /**
   * Host calls that settle in microtasks (in-memory reads) would let a guest looping on them starve the
   * host's event loop, timers and abort signals included: every so often the next pump waits for a macrotask.
   */
  private queuePump(): void {
    if (this.pumpQueued || this.finished) return
    this.pumpQueued = true
    // The clock is read every few pumps only: this is on the path of every host call.
    if (
      ++this.pumpsSinceYield >= YIELD_EVERY_PUMPS ||
      ((this.pumpsSinceYield & 15) === 0 && performance.now() - this.lastYield > YIELD_EVERY_MS)
    ) {
      this.pumpsSinceYield = 0
      yieldToHost(() => {
        this.lastYield = performance.now()
        this.queuedPump()
      })
    } else queueMicrotask(this.queuedPump)
  }
  /** The queued pump, made once per run: no closure per host call. */
  private readonly queuedPump = (): void => {
    this.pumpQueued = false
    this.pump()
  }

  /** Runs pending guest jobs, then looks at the clock and the program's promise. */
  private pump(): void {
    if (this.finished || !this.promise || !this.settle) return
    const stoppedBefore = this.clock.stop !== undefined
    const jobs = this.guard(() => this.k.executePendingJobs())
    if (!jobs) return
    // Promise reactions swallow the interrupt, so a stop that happened here may have landed inside a job.
    if (this.clock.stop && !stoppedBefore) this.interruptedInJob = true
    if (jobs.error) return this.settleWithError(jobs.error)
    // Host work done for the guest (a slow search, a tool) counts: past the deadline nothing succeeds.
    if (this.clock.check()) return this.settle({ kind: 'stopped', stop: this.clock.stop! })
    const state = this.guard(() => this.ctx.getPromiseState(this.promise!))
    if (!state) return
    if (state.type === 'rejected') return this.settleWithError(state.error)
    if (state.type === 'fulfilled') {
      const json = this.resultJson(state.value)
      state.value.dispose()
      if (json === ENDED) return
      if (this.clock.check()) return this.settle({ kind: 'stopped', stop: this.clock.stop! })
      // A resumed program must reach the call that asked: ending before it means it took another path.
      const left = this.journal?.unfinished()
      if (left) return this.settle({ kind: 'error', error: left })
      if (typeof json === 'string') return this.settle({ kind: 'ok', json })
      return this.settle({ kind: 'error', error: json.error })
    }
    // Still pending: a host call will settle it (and pump again), or the clock ends the run.
  }

  /**
   * The program's value as JSON, made in the guest by the captured stringify (never by anything the
   * guest replaced); primitives are converted on the host.
   */
  private resultJson(value: QuickJSHandle): string | { error: RunJsError } | typeof ENDED {
    const type = this.k.typeof(value)
    if (type === 'undefined') return UNDEFINED_RESULT
    if (type === 'number') {
      const n = this.ctx.getNumber(value)
      return Number.isFinite(n) ? JSON.stringify(n) : 'null'
    }
    if (type === 'boolean') return this.ctx.dump(value) ? 'true' : 'false'
    const made = this.guard(() => {
      try {
        return this.dispatch.values.resultJson(value, type === 'string')
      } catch (error) {
        // The strict stringify could not even start: the run was stopped or its memory is gone.
        if (error instanceof HelperFailed) return { refused: { name: 'InternalError', message: error.message } }
        throw error
      }
    })
    if (made === undefined) return { error: { name: 'InternalError', message: 'the engine failed while reading the result' } }
    if ('guest' in made) {
      this.settleWithError(made.guest)
      return ENDED
    }
    if ('refused' in made) return { error: made.refused }
    return made.json
  }

  /** QuickJS reports OOM as `InternalError: out of memory`, or, when even that cannot be allocated, throws a bare value. */
  private isOutOfMemory(error: RunJsError): boolean {
    if (error.message === 'out of memory') return true
    // Near the cap, malloc can fail for the error's own properties: an unreadable error means OOM.
    if (error.message.startsWith('the program threw') && usedBytes(this.instance.memory, 0) >= this.env.limits.memoryBytes * 0.75) {
      error.name = 'InternalError'
      return true
    }
    return false
  }

  /**
   * Reads the error that ends the run. No guest code may run from here on except the error's own
   * getters, on a small budget, and the allocation limit is lifted: after an out-of-memory error even
   * reading `message` needs memory (the capped wasm memory still holds).
   */
  private readFinalError(handle: QuickJSHandle): RunJsError {
    this.finished = true
    this.rt.setMemoryLimit(-1)
    this.reading = true
    try {
      return readGuestError(this.ctx, handle)
    } finally {
      this.reading = false
    }
  }

  /** True if jobs are queued; unknown (false) on builds that cannot tell (the debug build lacks an export). */
  private hasPendingJob(): boolean {
    try {
      return this.rt.hasPendingJob()
    } catch {
      return false
    }
  }

  /**
   * Frees everything this run allocated, on exactly one path. A poisoned instance is never
   * disposed (disposing a runtime after a host stack overflow aborts inside wasm): it is dropped.
   */
  teardown(): InstanceHealth {
    this.finished = true
    this.dispatch?.close()
    if (this.poisoned) return 'poisoned'
    // Jobs still queued (an endless microtask chain, one an interrupt cut short) are this run's: the next
    // run here would execute them. So the runtime is disposed, not reused; JS_FreeRuntime frees them
    // unrun (the faults suite checks it prints nothing: the gc_obj_list abort such runs once printed
    // came from a memory growing inside a job, engine/limits.ts memoryPages).
    const spent = this.hasPendingJob() || this.interruptedInJob
    try {
      this.rt.setMemoryLimit(-1)
      // The captured built-ins are freed through the context: before the handles (the context among them).
      this.k.close()
      this.handles.dispose()
      this.rt.removeInterruptHandler()
      if (this.modules) this.rt.removeModuleLoader()
    } catch {
      return 'poisoned'
    }
    // An instance that used more than half its memory keeps those pages resident (and one that ran
    // out may corrupt memory in a new context, FIELD-NOTES): dispose it so RSS can fall.
    if (spent || this.outOfMemory || usedBytes(this.instance.memory, this.env.limits.memoryBytes / 2) > 0) return 'exhausted'
    return 'healthy'
  }
}

/** {@link ProgramRun.resultJson} already settled the run (with the guest's own error). */
const ENDED: unique symbol = Symbol('ended')

/** Interrupt checks allowed while reading the error that ended a run. */
const READING_BUDGET = 50

const [YIELD_EVERY_PUMPS, YIELD_EVERY_MS] = [256, 8]

function mib(bytes: number): string {
  return `${Math.round(bytes / 1024 / 1024)} MiB`
}
