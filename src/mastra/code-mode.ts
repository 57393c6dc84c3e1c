import type { CodeModeToolResult, CodeModeTransport } from '@mastra/core/tools'
import {
  sanitizeToolId,
  type QuickJsEngine,
  type RunJsLimits,
  type RunJsResult,
  type RunJsToolFunction,
  type RunOptions as RunJsRunOptions,
  type TypeScriptLoader,
  type Vfs,
} from 'agent-vfs'
import { createRunner, defaultEngine, InstancePool, resolveLimits } from 'agent-vfs/internal'

/** Options of {@link QuickJsCodeModeTransport}. */
export interface QuickJsCodeModeTransportOptions {
  /** Limits of each program; the time limit comes from Code Mode's `timeout` on every call. */
  limits?: Omit<RunJsLimits, 'timeMs'>
  /** Also give programs a workspace as `vfs` (and archive them there, see `createRunJs`). */
  vfs?: Vfs
  /** Where programs are archived when `vfs` is given; `false` for nowhere. */
  archiveDir?: string | false
  /** How QuickJS is instantiated (pass `workerdEngine()` on Cloudflare Workers). */
  engine?: QuickJsEngine
  /** How ts-blank-space is loaded; Code Mode programs are TypeScript, so only `false` if you know they are not. */
  typescript?: TypeScriptLoader | false
}

type RunOptions = Parameters<CodeModeTransport['run']>[0]

/**
 * Mastra Code Mode without a sandbox: each program runs in a fresh QuickJS context in its own capped
 * WebAssembly memory, in this process, with run_js's limits (memory cap, 64 KiB stack, deadline and
 * interrupt budget). Tool calls cross a JSON-only bridge; the allow-list (`toolIds`) is enforced by
 * the host, and each tool appears as `external_<sanitizeToolId(id)>`.
 *
 * ```ts
 * const { tool, instructions } = createCodeMode({ tools }, new QuickJsCodeModeTransport())
 * ```
 */
export class QuickJsCodeModeTransport implements CodeModeTransport {
  /** Programs run in QuickJS here, not in a workspace sandbox. */
  readonly requiresSandbox = false
  private readonly pool: InstancePool

  constructor(private readonly options: QuickJsCodeModeTransportOptions = {}) {
    const limits = resolveLimits(options.limits)
    this.pool = new InstancePool(options.engine ?? defaultEngine(), limits.memoryBytes)
  }

  /** The workspace programs get as `vfs`, if any. */
  get workspace(): Vfs | undefined {
    return this.options.vfs
  }

  /**
   * Releases the QuickJS instances kept for reuse (their wasm memories with them). Runs in progress
   * finish; a later `run` starts a new instance. Call it when the transport is no longer needed.
   */
  close(): void {
    this.pool.close()
  }

  async run(opts: RunOptions): Promise<CodeModeToolResult> {
    const { program, toolIds, dispatch, timeout, abortSignal, onExternalCall, onExternalResult } = opts
    const tools: Record<string, RunJsToolFunction> = {}
    for (const id of toolIds) tools[id] = observedTool(id, input => dispatch(id, input), onExternalCall, onExternalResult)
    return codeModeResult(await this.runProgram(program, tools, timeout, { signal: abortSignal }))
  }

  /**
   * Runs one program with these tools (already observed and checked) and the run's options
   * (`suspendable`, `resume`: see `createSuspendableCodeMode`). Never throws.
   */
  async runProgram(
    program: string,
    tools: Record<string, RunJsToolFunction>,
    timeout: number,
    options: RunJsRunOptions,
  ): Promise<RunJsResult> {
    let runner
    try {
      runner = createRunner({
        vfs: this.options.vfs,
        archiveDir: this.options.archiveDir,
        engine: this.options.engine,
        typescript: this.options.typescript,
        pool: this.pool,
        tools,
        limits: { ...this.options.limits, timeMs: timeout > 0 ? timeout : 30_000 },
      })
    } catch (error) {
      return {
        success: false,
        logs: [],
        error: { name: (error as Error).name ?? 'Error', message: (error as Error).message ?? String(error) },
      }
    }
    return runner.run(program, options)
  }
}

/** A run's result as Code Mode returns it. */
export function codeModeResult(r: RunJsResult): CodeModeToolResult {
  const out: CodeModeToolResult = { success: r.success, logs: r.logs }
  if (r.result !== undefined) out.result = r.result
  if (r.error) out.error = { name: r.error.name, message: r.error.message, ...(r.error.line !== undefined ? { line: r.error.line } : {}) }
  return out
}

/** A tool as a program calls it: the tracing hooks hear the call and its end (once), and the result must be JSON. */
export function observedTool(
  id: string,
  call: (input: unknown) => Promise<unknown>,
  onExternalCall?: RunOptions['onExternalCall'],
  onExternalResult?: RunOptions['onExternalResult'],
): RunJsToolFunction {
  return async input => {
    observe(onExternalCall, id, input)
    const started = Date.now()
    let output: unknown
    try {
      output = await call(input)
      // The bridge hands the guest JSON only: a result that does not serialise fails the call, so
      // the hook must hear that failure (once), not a success followed by a failed run.
      assertJson(output, `external_${sanitizeToolId(id)}`)
    } catch (error) {
      observe(onExternalResult, id, Date.now() - started, error)
      throw error
    }
    observe(onExternalResult, id, Date.now() - started)
    return output
  }
}

/**
 * Throws the bridge's own TypeError for a tool result that is not JSON (a cycle, a BigInt, a function
 * or symbol at the top). Costs one extra `JSON.stringify` of each result; Code Mode results are small.
 */
function assertJson(output: unknown, globalName: string): void {
  if (output === undefined) return
  let json: string | undefined
  try {
    json = JSON.stringify(output)
  } catch (error) {
    throw new TypeError(`${globalName} returned a value that is not JSON-serializable: ${(error as Error).message}`, { cause: error })
  }
  if (json === undefined)
    throw new TypeError(
      `${globalName} returned a value that is not JSON-serializable: ${typeof output === 'function' ? 'a function' : `a ${typeof output}`}`,
    )
}

/** Tracing hooks must never break a call: their exceptions are swallowed. */
function observe<A extends unknown[]>(hook: ((...args: A) => void) | undefined, ...args: A): void {
  if (!hook) return
  try {
    hook(...args)
  } catch {
    // A broken tracer is not the program's problem.
  }
}
