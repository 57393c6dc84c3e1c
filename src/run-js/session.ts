import type { QuickJSContext, QuickJSHandle, QuickJSRuntime } from 'quickjs-emscripten-core'
import type { Vfs } from '../vfs/types.js'
import { archiveResult, archiveScript } from './archive.js'
import { bootstrapSource, UNDEFINED_RESULT } from './bootstrap.js'
import { Bridge, toGuestError } from './bridge.js'
import { PROGRAM_FILE, readGuestError } from './guest-error.js'
import type { ResolvedLimits } from './limits.js'
import type { Instance, InstanceHealth, InstancePool } from './pool.js'
import { ABORT, failure, preview, TIMEOUT, utf8Length } from './result.js'
import type { BoundTool } from './tools.js'
import { explainNotStripped, stripTypes, type TypeScriptLoader } from './typescript.js'
import type { RunJsError, RunJsResult } from './types.js'

/** Everything a run needs from its runner. */
export interface SessionEnv {
  pool: InstancePool
  limits: ResolvedLimits
  tools: ReadonlyMap<string, BoundTool>
  vfs?: Vfs
  /** The workspace's synchronous text reader, if it has one: decided once, for the bootstrap and every bridge. */
  readText?: (path: string) => string
  archiveDir?: string
  /** Cached bootstrap source for this tool set. */
  bootstrap: string
  typescript: TypeScriptLoader | false
}

/** Why the guest was stopped from outside. */
type Stop = 'timeout' | 'budget' | 'abort'

/** How the guest's program ended. */
type Outcome =
  | { kind: 'ok'; json: string }
  | { kind: 'error'; error: RunJsError }
  | { kind: 'stopped'; stop: Stop }
  /** An exception escaped wasm into the host (native stack overflow, wasm abort): the instance is poisoned. */
  | { kind: 'host'; error: unknown }

/** Wraps the program so that `return` works and line N of the program is line N + 1 of the file. */
function wrap(code: string): string {
  return `(async () => {\n${code}\n})`
}

export function makeBootstrap(tools: ReadonlyMap<string, BoundTool>, vfs: Vfs | undefined, readText: ((path: string) => string) | undefined): string {
  return bootstrapSource([...tools.values()].map((t) => [t.globalName, t.id] as const), vfs !== undefined, vfs !== undefined && readText !== undefined)
}

/**
 * One run: a fresh context on a pooled module instance's runtime, limits on, bridge installed,
 * program compiled (TypeScript stripped if it is not JavaScript), archived, run to completion or
 * stopped, then torn down along exactly one path.
 */
export async function runSession(env: SessionEnv, code: string, signal: AbortSignal | undefined): Promise<RunJsResult> {
  if (typeof code !== 'string') return failure({ name: 'TypeError', message: `the program must be a string, got ${typeof code}` })
  if (signal?.aborted) return failure(abortError(signal))

  let instance: Instance
  try {
    instance = await env.pool.acquire()
  } catch (error) {
    return failure({ name: 'InternalError', message: `QuickJS could not start: ${(error as Error)?.message ?? String(error)}` })
  }
  let session: Session
  try {
    session = new Session(env, instance, signal)
  } catch (error) {
    env.pool.release(instance, 'poisoned')
    return failure({ name: 'InternalError', message: `QuickJS could not start a context: ${(error as Error)?.message ?? String(error)}` })
  }
  let health: InstanceHealth = 'poisoned'
  try {
    const result = await session.run(code)
    health = session.teardown()
    return result
  } catch (error) {
    // Only host-side failures get here (the guest's own errors are results).
    health = session.teardown()
    return failure({ name: 'InternalError', message: `run_js failed on the host: ${(error as Error)?.message ?? String(error)}` }, session.logs())
  } finally {
    env.pool.release(instance, health)
  }
}

class Session {
  private readonly rt: QuickJSRuntime
  private readonly ctx: QuickJSContext
  private readonly bridge: Bridge
  /** Aborted when the run ends, so tools stop working for nobody. */
  private readonly runAbort = new AbortController()
  private readonly handles: QuickJSHandle[] = []
  private stop: Stop | undefined
  /** Set once the outcome is known: from then on, no guest code may run. */
  private finished = false
  private poisoned = false
  /** What poisoned the instance, for the run's error message. */
  private hostError: unknown
  private outOfMemory = false
  private interrupts = 0
  private budget = Infinity
  private deadline = Infinity
  private pumpQueued = false
  private settle: ((o: Outcome) => void) | undefined

  constructor(
    private readonly env: SessionEnv,
    private readonly instance: Instance,
    private readonly signal: AbortSignal | undefined,
  ) {
    const { limits } = env
    this.rt = instance.runtime ??= instance.module.newRuntime()
    this.rt.setMemoryLimit(limits.memoryBytes)
    this.rt.setMaxStackSize(limits.stackBytes)
    this.rt.setInterruptHandler(() => this.shouldInterrupt())
    this.ctx = this.rt.newContext()
    this.bridge = new Bridge(this.ctx, {
      vfs: env.vfs,
      readText: env.readText,
      tools: env.tools,
      signal: this.runAbort.signal,
      logChars: limits.logChars,
      onSettled: () => this.queuePump(),
      maxStringBytes: maxStringBytes(limits.memoryBytes),
      onHostError: (error) => {
        this.poisoned = true
        this.hostError ??= error
        this.settle?.({ kind: 'host', error })
      },
    })
  }

  logs(): string[] {
    return this.bridge.logs.result()
  }

  private shouldInterrupt(): boolean {
    // Reading the final error may run guest getters (`stack` is an accessor, `message` can be one):
    // they get a small budget of their own, whatever stopped the run.
    if (this.reading) return ++this.readingChecks > READING_BUDGET
    if (this.finished || this.stop || this.ending) return true
    // Before the clock starts only the host's bootstrap runs: it is not stopped half-way.
    if (!this.clockStarted) return false
    if (++this.interrupts > this.budget) this.stop = 'budget'
    else if (Date.now() > this.deadline) this.stop = 'timeout'
    else if (this.signal?.aborted) this.stop = 'abort'
    return this.stop !== undefined
  }

  /**
   * Starts the clock, once, for everything after the bootstrap: compile, TypeScript stripping,
   * archiving and execution share one deadline and one interrupt budget.
   */
  private startClock(): void {
    this.clockStarted = true
    this.interrupts = 0
    this.budget = this.env.limits.interruptBudget
    this.deadline = Date.now() + this.env.limits.timeMs
  }

  private clockStarted = false

  /**
   * Resolves when the deadline passes or the signal aborts, whatever the run is waiting for (the
   * interrupt handler only runs while guest code runs). Ends an executing program through `settle`.
   */
  private watchStop(): Promise<typeof STOPPED> {
    return new Promise((resolve) => {
      const fire = (stop: Stop) => {
        this.stop ??= stop
        resolve(STOPPED)
        this.settle?.({ kind: 'stopped', stop: this.stop })
      }
      const onAbort = () => fire('abort')
      const timer = setTimeout(() => fire('timeout'), Math.max(0, this.deadline - Date.now()))
      this.unwatchStop = () => {
        clearTimeout(timer)
        this.signal?.removeEventListener('abort', onAbort)
      }
      if (this.signal?.aborted) onAbort()
      else this.signal?.addEventListener('abort', onAbort, { once: true })
    })
  }

  private unwatchStop: () => void = () => {}

  async run(code: string): Promise<RunJsResult> {
    this.bridge.install()
    const runFn = this.evalOrThrow(this.env.bootstrap, 'bootstrap.js')
    this.startClock()
    const stopped = this.watchStop()
    try {
      return await this.runProgram(code, runFn, stopped)
    } finally {
      this.unwatchStop()
    }
  }

  /** Waits for `work` unless the run is stopped first; a late failure of `work` is dropped. */
  private async unlessStopped<T>(work: Promise<T>, stopped: Promise<typeof STOPPED>): Promise<T | typeof STOPPED> {
    work.catch(() => {})
    return Promise.race([work, stopped])
  }

  private async runProgram(code: string, runFn: QuickJSHandle, stopped: Promise<typeof STOPPED>): Promise<RunJsResult> {
    // Compile: the program as JavaScript first; TypeScript only if that fails.
    let language: 'js' | 'ts' = 'js'
    let compiled = this.compile(wrap(code))
    if ('error' in compiled && compiled.error.name === 'SyntaxError' && !this.stopped()) {
      const stripped = await this.unlessStopped(stripTypes(wrap(code), this.env.typescript), stopped)
      if (stripped === STOPPED) return failure(this.stopError(this.stop ?? 'timeout'), this.logs())
      if (!('code' in stripped)) {
        const explained = explainNotStripped(compiled.error.message, code, stripped)
        if (explained) compiled.error.message = explained
      } else if (stripped.code !== wrap(code)) {
        compiled = this.compile(stripped.code)
        language = 'ts'
      }
    }
    if (this.poisoned) return this.hostFailure(undefined, this.hostError)

    let scriptPath: string | undefined
    let scriptNumber: number | undefined
    if (this.env.vfs && this.env.archiveDir) {
      try {
        const saved = await this.unlessStopped(archiveScript(this.env.vfs, this.env.archiveDir, code, language), stopped)
        if (saved === STOPPED) return failure(this.stopError(this.stop ?? 'timeout'), this.logs())
        scriptPath = saved.path
        scriptNumber = saved.number
      } catch (error) {
        const e = toGuestError(error)
        return failure({ name: 'ArchiveError', message: `the program could not be archived, so it was not run: ${e.message}`, ...(e.code ? { code: e.code } : {}) })
      }
    }
    if ('error' in compiled) return failure(compiled.error, this.logs(), scriptPath)
    if (this.signal?.aborted) return failure(abortError(this.signal), this.logs(), scriptPath)
    if (this.stop) return failure(this.stopError(this.stop), this.logs(), scriptPath)

    const outcome = await this.execute(runFn, compiled.fn)
    const logs = this.logs()
    switch (outcome.kind) {
      case 'stopped':
        return failure(this.stopError(outcome.stop), logs, scriptPath)
      case 'host':
        return this.hostFailure(scriptPath, outcome.error)
      case 'error':
        if (this.isOutOfMemory(outcome.error)) {
          this.outOfMemory = true
          outcome.error.message = `out of memory (this run may use ${mib(this.env.limits.memoryBytes)})`
        }
        return failure(outcome.error, logs, scriptPath)
      case 'ok':
        return this.shapeResult(outcome.json, logs, scriptPath, scriptNumber)
    }
  }

  /** QuickJS reports OOM as `InternalError: out of memory`, or, when even that cannot be allocated, throws a bare value. */
  private isOutOfMemory(error: RunJsError): boolean {
    if (error.message === 'out of memory') return true
    // Near the cap, malloc can fail for the error's own properties: an unreadable error means OOM.
    const nearCap = this.instance.memory.buffer.byteLength >= this.env.limits.memoryBytes * 0.75
    if (nearCap && error.message.startsWith('the program threw')) {
      error.name = 'InternalError'
      return true
    }
    return false
  }

  private stopped(): boolean {
    return this.stop !== undefined || this.poisoned
  }

  private async shapeResult(json: string, logs: string[], scriptPath: string | undefined, n: number | undefined): Promise<RunJsResult> {
    const base = { success: true, logs, ...(scriptPath ? { scriptPath } : {}) }
    if (json === UNDEFINED_RESULT) return base
    if (json.length <= this.env.limits.inlineResultChars) return { ...base, result: JSON.parse(json) }
    const bytes = utf8Length(json)
    let resultPath: string | undefined
    if (this.env.vfs && this.env.archiveDir && n !== undefined) {
      try {
        resultPath = await archiveResult(this.env.vfs, this.env.archiveDir, n, json)
      } catch (error) {
        return failure({ name: 'ArchiveError', message: `the result (${bytes} bytes) was too large to return and could not be saved: ${toGuestError(error).message}` }, logs, scriptPath)
      }
    }
    return { ...base, result: preview(json, bytes, resultPath), bytes, ...(resultPath ? { resultPath } : {}) }
  }

  /** A failure on the host side of the engine (see {@link guard}); only a host stack overflow is worded as one. */
  private hostFailure(scriptPath: string | undefined, error: unknown): RunJsResult {
    const message = isHostStackOverflow(error)
      ? 'stack overflow: the program recursed too deeply for the host (the engine was replaced); reduce the nesting depth'
      : `the engine failed on the host (${describeHostError(error)}); the engine was replaced`
    return failure({ name: 'InternalError', message }, this.logs(), scriptPath)
  }

  private stopError(stop: Stop): RunJsError {
    const { timeMs, interruptBudget } = this.env.limits
    if (stop === 'abort') return abortError(this.signal)
    if (stop === 'budget') return { name: TIMEOUT, message: `run_js used up its compute budget (${interruptBudget} interrupt checks, about ${timeMs} ms of CPU) and was stopped` }
    return { name: TIMEOUT, message: `run_js timed out after ${timeMs} ms` }
  }

  /** Evaluates host-written code; failure there is a bug or a poisoned instance, not a guest error. */
  private evalOrThrow(source: string, file: string): QuickJSHandle {
    const result = this.guard(() => this.ctx.evalCode(source, file))
    if (!result) throw new Error(`${file} crashed the engine`)
    if (result.error) {
      const e = readGuestError(this.ctx, result.error)
      result.error.dispose()
      throw new Error(`${file} failed: ${e.name}: ${e.message}`)
    }
    this.handles.push(result.value)
    return result.value
  }

  private compile(source: string): { fn: QuickJSHandle } | { error: RunJsError } {
    const result = this.guard(() => this.ctx.evalCode(source, PROGRAM_FILE))
    if (!result) return { error: { name: 'InternalError', message: 'the engine crashed while compiling' } }
    if (result.error) {
      const error = this.stop ? this.stopError(this.stop) : readGuestError(this.ctx, result.error)
      result.error.dispose()
      return { error }
    }
    if (this.ctx.typeof(result.value) !== 'function') {
      // The source broke out of the wrapper (e.g. `}); x; (() => {`): refuse it rather than guess.
      result.value.dispose()
      return { error: { name: 'SyntaxError', message: 'the program is not a function body (unbalanced brackets?)' } }
    }
    this.handles.push(result.value)
    return { fn: result.value }
  }

  /**
   * Reads the error that ends the run. No guest code may run from here on, and the allocation limit
   * is lifted: after an out-of-memory error, even reading `message` needs memory. (The capped wasm
   * memory still holds.)
   */
  private readFinalError(handle: QuickJSHandle): RunJsError {
    this.ending = true
    this.rt.setMemoryLimit(-1)
    this.reading = true
    try {
      return readGuestError(this.ctx, handle)
    } finally {
      this.reading = false
    }
  }

  private ending = false
  private reading = false
  private readingChecks = 0
  private interruptedInJob = false

  /** Runs a host→QuickJS call; an exception thrown from inside wasm poisons the instance. */
  private guard<T>(fn: () => T): T | undefined {
    if (this.poisoned) return undefined
    try {
      return fn()
    } catch (error) {
      this.poisoned = true
      this.hostError ??= error
      this.settle?.({ kind: 'host', error })
      return undefined
    }
  }

  private execute(runFn: QuickJSHandle, programFn: QuickJSHandle): Promise<Outcome> {
    return new Promise<Outcome>((resolve) => {
      // The deadline and the abort signal reach an awaiting guest through watchStop().
      this.settle = (outcome) => {
        if (this.finished) return
        this.finished = true
        resolve(outcome)
      }

      // The program's promise is only inspected once it may have settled: the guest reports that
      // through `settled` (a host function only the run wrapper holds), or nothing is left in flight.
      const settled = this.ctx.newFunction('settled', () => {
        this.settledSeen = true
      })
      this.handles.push(settled)
      const started = this.guard(() => this.ctx.callFunction(runFn, this.ctx.undefined, programFn, settled))
      if (!started) return
      if (started.error) {
        const error = this.readFinalError(started.error)
        started.error.dispose()
        this.settle(this.stop ? { kind: 'stopped', stop: this.stop } : { kind: 'error', error })
        return
      }
      this.handles.push(started.value)
      this.promise = started.value
      this.pump()
    })
  }

  private promise: QuickJSHandle | undefined
  private settledSeen = false

  /**
   * Host calls that settle in microtasks (in-memory reads) would let a guest looping on them starve
   * the host's event loop, timers and abort signals included. So every so often the next pump waits
   * for a macrotask instead.
   */
  private queuePump(): void {
    if (this.pumpQueued || this.finished) return
    this.pumpQueued = true
    const run = () => {
      this.pumpQueued = false
      this.pump()
    }
    const now = performance.now()
    if (++this.pumpsSinceYield >= YIELD_EVERY_PUMPS || now - this.lastYield > YIELD_EVERY_MS) {
      this.pumpsSinceYield = 0
      yieldToHost(() => {
        this.lastYield = performance.now()
        run()
      })
    } else queueMicrotask(run)
  }

  private pumpsSinceYield = 0
  private lastYield = performance.now()

  /** Runs pending guest jobs, then looks at the program's promise. */
  private pump(): void {
    if (this.finished || !this.promise || !this.settle) return
    const stoppedBefore = this.stop !== undefined
    const jobs = this.guard(() => this.rt.executePendingJobs())
    if (!jobs) return
    // Promise reactions swallow the interrupt, so a stop that happened here may have landed inside a job.
    if (this.stop && !stoppedBefore) this.interruptedInJob = true
    if (jobs.error) {
      // A job ended with an uncatchable error: an interrupt, or out of memory.
      const error = this.readFinalError(jobs.error)
      jobs.error.dispose()
      if (this.stop) return this.settle({ kind: 'stopped', stop: this.stop })
      return this.settle({ kind: 'error', error })
    }
    if (!this.settledSeen && !this.stop && this.bridge.pending > 0) return
    const state = this.guard(() => this.ctx.getPromiseState(this.promise!))
    if (!state) return
    if (state.type === 'fulfilled') {
      const json = this.ctx.typeof(state.value) === 'string' ? this.ctx.getString(state.value) : UNDEFINED_RESULT
      state.value.dispose()
      return this.settle({ kind: 'ok', json })
    }
    if (state.type === 'rejected') {
      const error = this.readFinalError(state.error)
      state.error.dispose()
      if (this.stop) return this.settle({ kind: 'stopped', stop: this.stop })
      return this.settle({ kind: 'error', error })
    }
    if (this.stop) this.settle({ kind: 'stopped', stop: this.stop })
    // Still pending: a host call will settle it (and pump again), or the timer ends the run.
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
    this.runAbort.abort()
    this.bridge.close()
    if (this.poisoned) return 'poisoned'
    // Jobs still queued hold objects that JS_FreeRuntime would assert on, and running them means
    // running guest code after the run ended. And QuickJS can leak references when an interrupt lands
    // inside a promise job (an endless microtask chain does it): the context then outlives dispose()
    // and JS_FreeRuntime aborts inside wasm. In both cases drop the instance; its memory goes with it.
    if (this.hasPendingJob() || this.interruptedInJob) return 'poisoned'
    try {
      for (const h of this.handles.reverse()) if (h.alive) h.dispose()
      this.rt.setMemoryLimit(-1)
      this.ctx.dispose()
      this.rt.removeInterruptHandler()
    } catch {
      return 'poisoned'
    }
    const cap = this.instance.memory.buffer.byteLength
    if (this.outOfMemory || cap >= this.env.limits.memoryBytes) return 'exhausted'
    return 'healthy'
  }
}

/**
 * Largest string handed to a program at once: it is copied into the capped memory (unchecked by
 * quickjs-emscripten) and then becomes a QuickJS string, so it needs well under the whole cap.
 */
export function maxStringBytes(memoryBytes: number): number {
  return Math.floor(memoryBytes / 4)
}

/**
 * A native stack overflow escaping wasm: V8 throws RangeError "Maximum call stack size exceeded"
 * (Firefox: InternalError "too much recursion"). Read by name: the error may come from another realm.
 */
function isHostStackOverflow(error: unknown): boolean {
  const { name, message } = (error ?? {}) as { name?: unknown; message?: unknown }
  if (typeof message !== 'string') return false
  return (name === 'RangeError' && /call stack|stack/i.test(message)) || (name === 'InternalError' && /too much recursion/i.test(message))
}

function describeHostError(error: unknown): string {
  if (error instanceof Error || (typeof error === 'object' && error !== null && 'message' in error)) {
    const { name, message } = error as { name?: unknown; message?: unknown }
    return `${typeof name === 'string' && name ? name + ': ' : ''}${String(message)}`
  }
  return String(error)
}

/** What {@link Session.watchStop} resolves to. */
const STOPPED: unique symbol = Symbol('stopped')

/** Interrupt checks allowed while reading the error that ended a run. */
const READING_BUDGET = 50

const YIELD_EVERY_PUMPS = 256
const YIELD_EVERY_MS = 8

/** Runs `fn` in a macrotask, as soon as the host allows (setImmediate in Node, a message port elsewhere). */
const yieldToHost: (fn: () => void) => void = (() => {
  const g = globalThis as { setImmediate?: (fn: () => void) => unknown }
  if (typeof g.setImmediate === 'function') return (fn) => void g.setImmediate!(fn)
  if (typeof MessageChannel === 'function') {
    const queue: Array<() => void> = []
    let channel: MessageChannel | undefined
    return (fn) => {
      if (!channel) {
        channel = new MessageChannel()
        channel.port1.onmessage = () => queue.shift()?.()
      }
      queue.push(fn)
      channel.port2.postMessage(0)
    }
  }
  return (fn) => void setTimeout(fn, 0)
})()

function abortError(signal: AbortSignal | undefined): RunJsError {
  const reason = signal?.reason
  const why = reason instanceof Error && reason.name !== 'AbortError' ? `: ${reason.message}` : typeof reason === 'string' ? `: ${reason}` : ''
  return { name: ABORT, message: `run_js was aborted${why}` }
}

function mib(bytes: number): string {
  return `${Math.round(bytes / 1024 / 1024)} MiB`
}
