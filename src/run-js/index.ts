import { textReaderOf } from '../vfs/read-now.js'
import { archiveDirFor } from './host/archive.js'
import { checkImports } from './host/modules.js'
import { fetchTool } from './host/fetch.js'
import { defaultEngine } from './engine/engine.js'
import { resolveLimits } from './engine/limits.js'
import { InstancePool } from './engine/pool.js'
import { runProgram, type RunEnv } from './run.js'
import { failure } from './host/result.js'
import { DEFAULT_CONCURRENCY, DEFAULT_MAX_QUEUED, resolveCount, RunQueue, runQueued } from './host/run-queue.js'
import { HostCalls } from './host/host-calls.js'
import { Journal } from './host/journal.js'
import { bindTools } from './host/tools.js'
import { checkDefaultTypeScriptLoader, defaultTypeScriptLoader } from './host/typescript.js'
import type { GuestError, RunJs, RunJsJob, RunJsOptions, RunJsResult, RunOptions } from './types.js'

/**
 * Creates a runner for model-written programs over one workspace. Each `run` gets a fresh QuickJS
 * context in its own capped WebAssembly memory; the program sees `vfs`, `console` and the given
 * tools as `external_*` functions, and nothing else of the host.
 *
 * ```ts
 * const runJs = createRunJs({ vfs: scopeRun(vfs, { runId: 'r1' }) })
 * const r = await runJs.run(`const ps = await vfs.list('/context'); return ps.length`)
 * ```
 *
 * Throws only for bad options (a limit out of range, clashing tool names); `run` never throws for
 * anything the program does.
 */
export function createRunJs(options: RunJsOptions): RunJs {
  if (!options || typeof options.vfs !== 'object' || options.vfs === null)
    throw new TypeError('createRunJs: options.vfs (a Vfs or run scope) is required')
  const runner = createRunner(options)
  if (options.typescript === undefined) checkDefaultTypeScriptLoader()
  return runner
}

/** Options of {@link createRunner}: those of `createRunJs` with `vfs` optional, plus a shared pool. */
export interface RunnerOptions extends Omit<RunJsOptions, 'vfs'> {
  vfs?: RunJsOptions['vfs']
  /** Instances to share with other runners of the same memory limit (see {@link InstancePool}). */
  pool?: InstancePool
}

/** The runner behind `createRunJs` and the Mastra transport; without `vfs` the guest has no `vfs`. */
export function createRunner(options: RunnerOptions): RunJs {
  const env = runnerEnv(options)
  const { limits } = env
  const queue = new RunQueue(
    resolveCount(options.concurrency, DEFAULT_CONCURRENCY, 'concurrency'),
    resolveCount(options.maxQueued, DEFAULT_MAX_QUEUED, 'maxQueued'),
    `a slot of this runner (concurrency ${options.concurrency ?? DEFAULT_CONCURRENCY})`,
  )
  const execute = executorOf(options, env)
  return {
    run(code: string, runOptions: RunOptions = {}): Promise<RunJsResult> {
      return runQueued(queue, limits.timeMs, runOptions.signal, timeMs => execute(code, timeMs, runOptions.signal, runOptions))
    },
    close(): void {
      env.pool.close()
    },
  }
}

/** What every run of a runner shares, from its options (checked here: a bad option throws). */
export function runnerEnv(options: RunnerOptions): RunEnv {
  const limits = resolveLimits(options.limits)
  return {
    pool: options.pool ?? new InstancePool(options.engine ?? defaultEngine(), limits.memoryBytes),
    limits,
    tools: bindTools(withFetch(options)),
    vfs: options.vfs,
    readText: textReaderOf(options.vfs),
    archiveDir: archiveDirFor(options.vfs, options.archiveDir),
    typescript: options.typescript === undefined ? defaultTypeScriptLoader : options.typescript,
    imports: checkImports(options.imports),
  }
}

/** The runner's tools, with `fetch` (host/fetch.ts) among them when the options give programs the network. */
function withFetch(options: RunnerOptions): RunJsOptions['tools'] {
  if (!options.fetch) return options.tools
  if (options.tools && 'fetch' in options.tools)
    throw new TypeError('run_js: a tool named "fetch" clashes with options.fetch; rename the tool')
  if (!Array.isArray(options.fetch.allow))
    throw new TypeError('run_js: options.fetch.allow must be an array of { prefix, methods?, headers? }')
  return { ...options.tools, fetch: fetchTool(options.fetch) }
}

/** Runs one program with `timeMs` left: on this thread, or through the runner's executor. */
type Execute = (code: string, timeMs: number, signal: AbortSignal | undefined, options: RunOptions) => Promise<RunJsResult>

function executorOf(options: RunnerOptions, env: RunEnv): Execute {
  const { executor } = options
  if (!executor) return (code, timeMs, signal, runOptions) => runProgram(env, code, signal, timeMs, runOptions)
  if (typeof executor.execute !== 'function') throw new TypeError('run_js: options.executor must have an execute(job) method')
  // Both are functions of this thread; the executor's side has its own.
  if (options.engine)
    throw new TypeError(
      'run_js: options.engine cannot be combined with an executor (it runs programs in another thread with its own engine)',
    )
  if (typeof options.typescript === 'function')
    throw new TypeError(
      'run_js: a custom typescript loader cannot be combined with an executor (it loads ts-blank-space itself); leave it unset or pass false',
    )
  const toolIds = [...env.tools.keys()]
  return async (code, timeMs, signal, runOptions) => {
    // Nothing that is not a string crosses; the in-thread path answers it without starting anything.
    if (typeof code !== 'string') return runProgram(env, code, signal)
    // The workspace and the tools stay here: the executor calls them through the job until it settles.
    // A suspendable run's journal is kept here too; the program is stopped (its signal) when it parks.
    const { suspendable, resume } = runOptions
    const journal =
      suspendable || resume ? new Journal(typeof suspendable === 'object' ? suspendable : undefined, resume, env.archiveDir) : undefined
    const stop = journal ? new AbortController() : undefined
    let parked: { call: string; request: unknown } | { diverged: GuestError } | undefined
    const run = { deadline: Date.now() + timeMs, archiveDir: env.archiveDir, readText: env.readText }
    const host = new HostCalls(
      env.vfs,
      env.tools,
      journal,
      park => {
        parked = park
        stop!.abort('parked')
      },
      run,
    )
    if (stop && signal) {
      if (signal.aborted) stop.abort(signal.reason)
      else signal.addEventListener('abort', () => stop.abort(signal.reason), { once: true })
    }
    const job: RunJsJob = {
      code,
      limits: env.limits,
      timeLeftMs: timeMs,
      vfs: env.vfs,
      toolIds,
      archiveDir: env.archiveDir,
      typescript: options.typescript !== false,
      imports: env.imports,
      ...(typeof options.tenant === 'string' ? { tenant: options.tenant } : {}),
      signal: stop ? stop.signal : signal,
      ...(journal ? { clock: { seed: journal.seed, times: journal.recordedTimes(), read: time => host.clockRead(time) } } : {}),
      call: (kind, name, args) => host.call(kind, name, args),
    }
    try {
      const result = await executor.execute(job)
      return journal ? await parkedResult(result, parked, journal, host) : result
    } catch (error) {
      return failure({
        name: 'InternalError',
        message: `run_js: the executor failed: ${(error as Error)?.message ?? String(error)}`,
      })
    } finally {
      host.end()
    }
  }
}

/** An executor's result when the program parked (asked, or left its journal on replay): what the in-thread run says then. */
async function parkedResult(
  result: RunJsResult,
  parked: { call: string; request: unknown } | { diverged: GuestError } | undefined,
  journal: Journal,
  host: HostCalls,
): Promise<RunJsResult> {
  const where = result.scriptPath
  if (parked && 'diverged' in parked) return failure(parked.diverged, result.logs, where)
  if (parked) {
    await host.quiesce()
    const message = `the program is waiting for a person: ${parked.call} asked; resume the run with the answer`
    return { ...failure({ name: 'SuspendedError', message }, result.logs, where), suspended: { ...parked, journal: journal.data() } }
  }
  const left = result.success ? journal.unfinished() : undefined
  return left ? failure(left, result.logs, where) : result
}

// The public run_js API (the root re-exports it); src/internal.ts takes what other entries need.
export { sanitizeToolId } from './host/tools.js'
export { variantEngine, type QuickJsEngine, type QuickJsModule, type VariantEngineOptions } from './engine/engine.js'
export { DEFAULT_LIMITS } from './engine/limits.js'
export { DEFAULT_JOURNAL_LIMITS } from './host/journal.js'
export { RunJsSuspension, isRunJsSuspension } from './host/suspension.js'
export { describeGuestApi, RUN_JS_DESCRIPTION } from './guest/guest-api.js'
export type { TypeScriptLoader, TypeScriptStripper } from './host/typescript.js'
export type {
  RunJs,
  RunJsOptions,
  RunJsLimits,
  RunJsImports,
  RunJsFetch,
  RunJsFetchRule,
  RunJsResult,
  RunJsError,
  RunJsTool,
  RunJsToolFunction,
  RunJsToolContext,
  RunJsSchema,
  RunOptions,
  RunJsExecutor,
  RunJsJob,
  RunJsJobClock,
  HostCallAnswer,
  RunJsJournal,
  RunJsJournalCall,
  RunJsJournalLimits,
  RunJsResume,
  RunJsResumeAnswer,
  RunJsSuspended,
} from './types.js'
