import { archiveModules, archiveResult, archiveScript } from './host/archive.js'
import { hoistImports } from './host/import-scan.js'
import { maxImports, ModuleGraph, moduleSource, STOPPED, type ModuleGraphOptions } from './host/modules.js'
import { toGuestError } from './guest/host-error.js'
import { RunClock, type Stop } from './engine/clock.js'
import { parseBoundedJson, utf8Length } from './guest/host-json.js'
import type { InstancePool } from './engine/pool.js'
import { abortError, failure, preview, TIMEOUT } from './host/result.js'
import { ProgramRun } from './program-run.js'
import { UNDEFINED_RESULT, type ProgramEnv, type ProgramOutcome } from './program-contract.js'
import { explainNotStripped, stripperFor, stripWith, type TypeScriptLoader } from './host/typescript.js'
import { Journal } from './host/journal.js'
import { explainUnknownName } from './host/unknown-name.js'
import type { RunJsError, RunJsImports, RunJsResult, RunOptions } from './types.js'
import type { Vfs } from '../vfs/types.js'

/** Everything a run needs from its runner. */
export interface RunEnv extends ProgramEnv {
  pool: InstancePool
  archiveDir?: string
  typescript: TypeScriptLoader | false
  /** How `import` resolves (host/modules.ts). */
  imports: RunJsImports
  /**
   * The workspace the runner's own file operations go through (the archive, the modules read ahead),
   * when not `vfs`: a worker thread's, outside the run's journal (in-thread they never reach it either).
   */
  runnerVfs?: Vfs
}

/** What a program gets when the host cannot run programs at all (never its own fault). */
const HOST_UNAVAILABLE =
  'run_js is unavailable: the host could not start QuickJS (a fault of the host, not of the program; the host log has the details)'

/**
 * How long loading the TypeScript loader may take (not the program's time, but not forever either).
 * The floor is what a browser needs: through Vite's dev server (vitest browser mode) the first import of
 * the 3.5 MB loader measured 10.8-15.4 s on a busy 2-core machine, so a 10 s floor failed such runs.
 */
function loaderTimeMs(timeMs: number): number {
  return Math.max(10 * timeMs, 30_000)
}

/** Wraps the program so that `return` works and line N of the program is line N + 1 of the file. */
function wrap(code: string): string {
  return `(async () => {\n${code}\n})`
}

/**
 * One run, start to end: checks, a pooled instance, one clock, the engine (compile, execute), and
 * around it what is not the engine's job: TypeScript loading, archiving the script and a large
 * result, shaping the result. `timeMs` is the time the run has (less than its limit when it waited
 * for a slot); a timeout is still reported as the limit. Never throws.
 */
export async function runProgram(
  env: RunEnv,
  code: string,
  signal: AbortSignal | undefined,
  timeMs = env.limits.timeMs,
  options: Pick<RunOptions, 'suspendable' | 'resume'> = {},
): Promise<RunJsResult> {
  if (typeof code !== 'string') return failure({ name: 'TypeError', message: `the program must be a string, got ${typeof code}` })
  const tooLarge = programTooLarge(code, env.limits.programBytes)
  if (tooLarge) return failure(tooLarge)
  if (signal?.aborted) return failure(abortError(signal))

  let instance
  try {
    const acquired = env.pool.acquire()
    instance = acquired instanceof Promise ? await acquired : acquired
  } catch (error) {
    // The host's fault (a missing wasm, a bad engine): its details (paths of the host) go to the
    // host's log, the program's result says only that run_js is unavailable here.
    console.error('agent-vfs run_js: QuickJS could not start:', error)
    return failure({ name: 'InternalError', message: HOST_UNAVAILABLE, host: true })
  }
  const clock = new RunClock({ timeMs, interruptBudget: env.limits.interruptBudget }, signal)
  const { suspendable, resume } = options
  const journal =
    suspendable || resume ? new Journal(typeof suspendable === 'object' ? suspendable : undefined, resume, env.archiveDir) : undefined
  let programRun: ProgramRun
  try {
    programRun = new ProgramRun(env, instance, clock, journal)
  } catch (error) {
    env.pool.release(instance, 'poisoned')
    return failure({ name: 'InternalError', message: `QuickJS could not start a context: ${toGuestError(error).message}` })
  }
  try {
    clock.start()
    const result = await runToEnd(env, programRun, clock, code)
    return programRun.cpuMs > 0 ? { ...result, cpuMs: Math.round(programRun.cpuMs * 1000) / 1000 } : result
  } catch (error) {
    // Only host-side failures get here (the guest's own errors are results).
    return failure({ name: 'InternalError', message: `run_js failed on the host: ${toGuestError(error).message}` }, safeLogs(programRun))
  } finally {
    clock.end()
    let health: ReturnType<ProgramRun['teardown']> = 'poisoned'
    try {
      health = programRun.teardown()
    } catch {
      // A teardown that fails leaves the instance poisoned; the run's result stands.
    }
    env.pool.release(instance, health)
  }
}

/**
 * The steps of one run around its engine half, as methods (no closures made per run): host waits
 * raced against the clock, whose timer is armed by the first wait (a run that never waits needs none).
 */
class RunSteps {
  private stopped: Promise<typeof STOPPED> | undefined

  constructor(
    readonly env: RunEnv,
    readonly programRun: ProgramRun,
    readonly clock: RunClock,
  ) {}

  /** Waits for host work unless the clock stops first; a late failure of `work` is dropped. */
  until<T>(work: Promise<T>): Promise<T | typeof STOPPED> {
    work.catch(() => {})
    this.clock.arm()
    this.stopped ??= new Promise<typeof STOPPED>(resolve => this.clock.onStop(() => resolve(STOPPED)))
    return Promise.race([work, this.stopped])
  }

  stopFailure(scriptPath?: string): RunJsResult {
    return failure(stopError(this.clock.stop ?? 'timeout', this.env, this.clock.callerSignal), this.programRun.logs(), scriptPath)
  }

  loadStripper(): ReturnType<ModuleGraphOptions['loadStripper']> {
    return this.until(this.clock.outside(stripperFor(this.env.typescript), loaderTimeMs(this.env.limits.timeMs)))
  }

  compile(js: string, graph: ModuleGraph | undefined, asModule: boolean): ReturnType<ProgramRun['compile']> {
    return graph ? this.programRun.compileModule(js, graph, this.env.imports, asModule) : this.programRun.compile(js)
  }
}

async function runToEnd(env: RunEnv, programRun: ProgramRun, clock: RunClock, code: string): Promise<RunJsResult> {
  const steps = new RunSteps(env, programRun, clock)
  // A program that imports is a module (its imports read ahead: host/modules.ts); others a function body.
  // An `import(name)` of a computed name finds nothing ahead, but gets the loader's explanation.
  const hoisted = hoistImports(code, maxImports(env.limits)) ?? (/\bimport\s*\(/.test(code) ? { declarations: [], body: code } : undefined)
  let graph: ModuleGraph | undefined
  if (hoisted) {
    graph = new ModuleGraph({
      vfs: env.runnerVfs ?? env.vfs,
      imports: env.imports,
      limits: env.limits,
      until: work => steps.until(work),
      loadStripper: () => steps.loadStripper(),
      clock,
    })
    try {
      if ((await graph.read(code)) === STOPPED) return steps.stopFailure()
    } catch (error) {
      const e = toGuestError(error)
      return failure({ name: 'ImportError', message: e.message, ...(e.code ? { code: e.code } : {}) }, programRun.logs())
    }
  }
  const asModule = hoisted !== undefined && hoisted.declarations.length > 0
  const source = asModule ? moduleSource(hoisted.declarations, hoisted.body) : wrap(code)

  // Compile: the program as JavaScript first; TypeScript only if that fails.
  let language: 'js' | 'ts' = 'js'
  let compiled = steps.compile(source, graph, asModule)
  if ('error' in compiled && compiled.error.name === 'SyntaxError' && !clock.stop && !programRun.poisoned) {
    const strip = await steps.loadStripper()
    if (strip === STOPPED) return steps.stopFailure()
    const stripped = typeof strip === 'function' ? stripWith(strip, source) : strip
    if (!('code' in stripped)) {
      // Not stripped: if it looks like TypeScript, say so, or a model "fixes" valid code.
      const explained = explainNotStripped(compiled.error.message, code, stripped)
      if (explained) compiled.error.message = explained
    } else if (stripped.code !== source) {
      compiled = steps.compile(stripped.code, graph, asModule)
      language = 'ts'
    }
  }
  if (programRun.poisoned) return hostFailure(programRun, undefined)
  if (clock.check()) return steps.stopFailure()

  let scriptPath: string | undefined
  let scriptNumber: number | undefined
  const archive = env.runnerVfs ?? env.vfs
  if (archive && env.archiveDir) {
    try {
      const saved = await steps.until(archiveScript(archive, env.archiveDir, code, language))
      if (saved === STOPPED) return steps.stopFailure()
      scriptPath = saved.path
      scriptNumber = saved.number
      if (graph?.loaded.length && (await steps.until(archiveModules(archive, env.archiveDir, saved.number, graph.loaded))) === STOPPED)
        return steps.stopFailure(scriptPath)
    } catch (error) {
      const e = toGuestError(error)
      return failure({
        name: 'ArchiveError',
        message: `the program could not be archived, so it was not run: ${e.message}`,
        ...(e.code ? { code: e.code } : {}),
      })
    }
  }
  if ('error' in compiled) return failure(compiled.error, programRun.logs(), scriptPath)
  if (clock.check()) return steps.stopFailure(scriptPath)
  return ended(steps, await programRun.execute(compiled.fn), code, scriptPath, scriptNumber)
}

/** The run's result from how its program ended. */
async function ended(
  steps: RunSteps,
  outcome: ProgramOutcome,
  code: string,
  scriptPath: string | undefined,
  scriptNumber: number | undefined,
): Promise<RunJsResult> {
  const { env, programRun, clock } = steps
  const logs = programRun.logs()
  switch (outcome.kind) {
    case 'stopped':
      return failure(stopError(outcome.stop, env, clock.callerSignal), logs, scriptPath)
    case 'host':
      return hostFailure(programRun, scriptPath)
    case 'error':
      return failure(explainUnknownName(outcome.error, code, env.tools), logs, scriptPath)
    case 'suspended': {
      // Whatever the host was still doing for the program finishes and is journaled before the
      // journal is handed out, so that a resumed run replays it instead of doing it again.
      const quiet = await steps.until(programRun.quiesce())
      if (quiet === STOPPED) return steps.stopFailure(scriptPath)
      const message = `the program is waiting for a person: ${outcome.call} asked; resume the run with the answer`
      return {
        ...failure({ name: 'SuspendedError', message }, programRun.logs(), scriptPath),
        suspended: { call: outcome.call, request: outcome.request, journal: programRun.journal!.data() },
      }
    }
    case 'ok': {
      // A result small enough to return inline needs no host work: no wait.
      const inline = shapeInline(env, outcome.json, logs, scriptPath)
      const result = inline ?? (await steps.until(shapeLarge(env, outcome.json, logs, scriptPath, scriptNumber)))
      // Nothing succeeds after the deadline, whatever the host was doing for the guest.
      if (result === STOPPED || (result.success && clock.check())) return steps.stopFailure(scriptPath)
      return result
    }
  }
}

/** The program's size error, or undefined if it fits. */
function programTooLarge(code: string, max: number): RunJsError | undefined {
  if (code.length <= max / 3) return undefined
  const bytes = utf8Length(code)
  if (bytes <= max) return undefined
  return {
    name: 'RangeError',
    code: 'E2BIG',
    message: `the program is too large: ${bytes} bytes, at most ${max} (limits.programBytes); keep data in files and read it with vfs.read instead of writing it into the program`,
  }
}

/** The result when it is small enough to return inline (or none), else undefined. */
function shapeInline(env: RunEnv, json: string, logs: string[], scriptPath: string | undefined): RunJsResult | undefined {
  if (json !== UNDEFINED_RESULT && json.length > env.limits.inlineResultChars) return undefined
  const base: RunJsResult = scriptPath ? { success: true, logs, scriptPath } : { success: true, logs }
  if (json === UNDEFINED_RESULT) return base
  const parsed = parseBoundedJson(json, 'the result')
  if ('error' in parsed) return failure({ name: 'RangeError', message: parsed.error }, logs, scriptPath)
  base.result = parsed.value
  return base
}

/** A result too large to return inline: a preview, and the whole written next to the script. */
async function shapeLarge(
  env: RunEnv,
  json: string,
  logs: string[],
  scriptPath: string | undefined,
  n: number | undefined,
): Promise<RunJsResult> {
  const base = { success: true, logs, ...(scriptPath ? { scriptPath } : {}) }
  const bytes = utf8Length(json)
  let resultPath: string | undefined
  const archive = env.runnerVfs ?? env.vfs
  if (archive && env.archiveDir && n !== undefined) {
    try {
      resultPath = await archiveResult(archive, env.archiveDir, n, json)
    } catch (error) {
      return failure(
        {
          name: 'ArchiveError',
          message: `the result (${bytes} bytes) was too large to return and could not be saved: ${toGuestError(error).message}`,
        },
        logs,
        scriptPath,
      )
    }
  }
  return { ...base, result: preview(json, bytes, resultPath), bytes, ...(resultPath ? { resultPath } : {}) }
}

/** A failure on the host side of the engine; only a host stack overflow is worded as one. */
function hostFailure(programRun: ProgramRun, scriptPath: string | undefined): RunJsResult {
  const error = programRun.hostError
  const message = isHostStackOverflow(error)
    ? 'stack overflow: the program recursed too deeply for the host (the engine was replaced); reduce the nesting depth'
    : `the engine failed on the host (${describeHostError(error)}); the engine was replaced`
  return failure({ name: 'InternalError', message }, safeLogs(programRun), scriptPath)
}

function safeLogs(programRun: ProgramRun): string[] {
  try {
    return programRun.logs()
  } catch {
    return []
  }
}

function stopError(stop: Stop, env: RunEnv, signal: AbortSignal | undefined): RunJsError {
  const { timeMs, interruptBudget } = env.limits
  if (stop === 'abort') return abortError(signal)
  if (stop === 'budget')
    return {
      name: TIMEOUT,
      message: `run_js used up its compute budget (${interruptBudget} interrupt checks, about ${timeMs} ms of CPU) and was stopped`,
    }
  return { name: TIMEOUT, message: `run_js timed out after ${timeMs} ms` }
}

/**
 * A native stack overflow escaping wasm: V8 throws RangeError "Maximum call stack size exceeded"
 * (Firefox: InternalError "too much recursion"). Read by name: the error may come from another realm.
 */
function isHostStackOverflow(error: unknown): boolean {
  try {
    const { name, message } = (error ?? {}) as { name?: unknown; message?: unknown }
    if (typeof message !== 'string') return false
    return (name === 'RangeError' && /call stack|stack/i.test(message)) || (name === 'InternalError' && /too much recursion/i.test(message))
  } catch {
    return false
  }
}

function describeHostError(error: unknown): string {
  const e = toGuestError(error)
  return e.name && e.name !== 'Error' ? `${e.name}: ${e.message}` : error instanceof Error ? `Error: ${e.message}` : e.message
}
