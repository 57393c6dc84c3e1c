import { textReaderOf } from '../vfs/read-now.js'
import { archiveDirFor } from './archive.js'
import { defaultEngine } from './engine.js'
import { resolveLimits } from './limits.js'
import { InstancePool } from './pool.js'
import { runProgram, type RunEnv } from './run.js'
import { bindTools } from './tools.js'
import { defaultTypeScriptLoader } from './typescript.js'
import type { RunJs, RunJsOptions, RunJsResult, RunOptions } from './types.js'

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
  if (!options || typeof options.vfs !== 'object' || options.vfs === null) throw new TypeError('createRunJs: options.vfs (a Vfs or run scope) is required')
  return createRunner(options)
}

/** Options of {@link createRunner}: those of `createRunJs` with `vfs` optional, plus a shared pool. */
export interface RunnerOptions extends Omit<RunJsOptions, 'vfs'> {
  vfs?: RunJsOptions['vfs']
  /** Instances to share with other runners of the same memory limit (see {@link InstancePool}). */
  pool?: InstancePool
}

/** The runner behind `createRunJs` and the Mastra transport; without `vfs` the guest has no `vfs`. */
export function createRunner(options: RunnerOptions): RunJs {
  const limits = resolveLimits(options.limits)
  const tools = bindTools(options.tools)
  const readText = textReaderOf(options.vfs)
  const env: RunEnv = {
    pool: options.pool ?? new InstancePool(options.engine ?? defaultEngine(), limits.memoryBytes),
    limits,
    tools,
    vfs: options.vfs,
    readText,
    archiveDir: archiveDirFor(options.vfs, options.archiveDir),
    typescript: options.typescript === undefined ? defaultTypeScriptLoader : options.typescript,
  }
  return {
    run(code: string, runOptions: RunOptions = {}): Promise<RunJsResult> {
      return runProgram(env, code, runOptions.signal)
    },
    close(): void {
      env.pool.close()
    },
  }
}

export { sanitizeToolId } from './tools.js'
export { InstancePool } from './pool.js'
export { resolveLimits } from './limits.js'
export { variantEngine, defaultEngine, type QuickJsEngine, type QuickJsModule, type VariantEngineOptions } from './engine.js'
export { DEFAULT_LIMITS } from './limits.js'
export { describeGuestApi, RUN_JS_DESCRIPTION } from './guest-api.js'
export type { TypeScriptLoader, TypeScriptStripper } from './typescript.js'
export type {
  RunJs, RunJsOptions, RunJsLimits, RunJsResult, RunJsError, RunJsTool, RunJsToolFunction, RunJsToolContext, RunJsSchema, RunOptions,
} from './types.js'
