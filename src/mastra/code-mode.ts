import type { CodeModeToolResult, CodeModeTransport } from '@mastra/core/tools'
import {
  sanitizeToolId,
  type QuickJsEngine,
  type RunJsFetch,
  type RunJsLimits,
  type RunJsResult,
  type RunJsToolFunction,
  type RunOptions as RunJsRunOptions,
  type TypeScriptLoader,
  type Vfs,
} from 'agent-vfs'
import { createRunner, defaultEngine, InstancePool, resolveLimits } from 'agent-vfs/internal'
import { evaluateFetch, type PolicyRule, type PolicyVerdict } from 'agent-vfs/agent'

/** A program's request to a URL on no `allow` rule, and why the policy asks about it. */
export interface CodeModeFetchRequest {
  url: string
  origin: string
  method: string
  /** The reason of the policy rule that asks (or why there is no policy). */
  reason: string
}

/**
 * The network of Code Mode programs: run_js's `fetch` (allow-list, host-side secrets, private
 * addresses refused, per-run limits: docs/run-js-fetch.md), with a URL on no `allow` rule decided
 * as the session host decides it: by `policy`, then `ask`.
 */
export interface CodeModeFetchOptions extends Omit<RunJsFetch, 'ask'> {
  /**
   * Rules for a URL on no `allow` rule, as the agent's policy (`agent-vfs/agent`): the first rule that
   * names the tool `fetch` (and the request's origin, if it lists `origins`) decides `allow`, `deny`
   * or `ask`; with none, the request is refused, and broad rules (no `tools`, or `*`) never open the
   * network. Read at every request. Without `policy`, every such URL is an `ask` when `ask` is set,
   * else refused.
   */
  policy?: readonly PolicyRule[] | (() => readonly PolicyRule[])
  /**
   * Answers an `ask` (an approval callback): `'allow'` lets that origin and method through for the rest
   * of the program. Without it, a program run by `createSuspendableCodeMode` waits for a person (its
   * `execute_typescript` call suspends with `{ kind: 'approval', reason, fetch: { url, origin, method } }`;
   * resume with `{ approved: true }` to send the request once, anything else refuses it); a plain Code
   * Mode program is refused.
   */
  ask?: (request: CodeModeFetchRequest) => Promise<'allow' | 'deny'> | 'allow' | 'deny'
}

/** What a suspendable program does with an `ask` nobody answers at once: parks (throws), or the answer it resumed with. */
export type FetchPark = (request: CodeModeFetchRequest) => 'allow' | 'deny'

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
  /** Gives programs `external_fetch` under an allow-list and a policy (see {@link CodeModeFetchOptions}). Default: no network. */
  fetch?: CodeModeFetchOptions
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
   * (`suspendable`, `resume`, and `park` for a fetch the policy asks about: see `createSuspendableCodeMode`). Never throws.
   */
  async runProgram(
    program: string,
    tools: Record<string, RunJsToolFunction>,
    timeout: number,
    options: RunJsRunOptions,
    park?: FetchPark,
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
        ...(this.options.fetch ? { fetch: runJsFetch(this.options.fetch, park) } : {}),
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

/** The transport's fetch options as run_js takes them: `ask` decided by the policy, the callback, then `park`. */
function runJsFetch(options: CodeModeFetchOptions, park: FetchPark | undefined): RunJsFetch {
  const { policy, ask, ...fetch } = options
  const rules = typeof policy === 'function' ? policy : () => policy ?? []
  const unruled: PolicyVerdict = ask
    ? { decision: 'ask', reason: 'no fetch rule allows this URL' }
    : { decision: 'deny', reason: 'no fetch rule allows this URL' }
  return {
    ...fetch,
    ask: async request => {
      const verdict = policy === undefined ? unruled : evaluateFetch(rules(), request)
      if (verdict.decision !== 'ask') return verdict.decision === 'allow' ? 'allow' : 'deny'
      const asked = { ...request, reason: verdict.reason }
      if (ask) return (await ask(asked)) === 'allow' ? 'allow' : 'deny'
      return park ? park(asked) : 'deny'
    },
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
