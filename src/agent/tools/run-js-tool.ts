import { RUN_JS_DESCRIPTION } from 'agent-vfs'
import { z } from 'zod'
import { defineTool, ToolError } from './tool.js'
import { traceRunJs } from '../telemetry/spans.js'

/** Why a run_js program failed; `host` when the host could not run it at all (not the program's fault). */
export interface RunJsOutcomeError {
  name: string
  message: string
  line?: number
  host?: true
}

/** What a run_js program produced; the shape `createRunJs(...).run()` resolves to. */
export interface RunJsOutcome {
  success: boolean
  result?: unknown
  logs: readonly unknown[]
  error?: RunJsOutcomeError
  /** Where the program was archived in the workspace. */
  scriptPath?: string
  /** Where a large result was written instead of being returned. */
  resultPath?: string
  bytes?: number
  /** Milliseconds the program ran guest code (what a run_js CPU budget counts). */
  cpuMs?: number
}

/** Anything that runs a model-written program against the workspace, e.g. `createRunJs({ vfs })`. */
export interface RunJsRunner {
  run(code: string, options?: { signal?: AbortSignal }): Promise<RunJsOutcome>
}

export { RUN_JS_DESCRIPTION }

/** Options of {@link runJsTool}. */
export interface RunJsToolOptions {
  /** What the model reads about the tool. Default {@link RUN_JS_DESCRIPTION}. */
  description?: string
  /**
   * Declares that the runner's workspace checks the policy on each file operation (what
   * `createWorkspaceTools` builds); otherwise the policy treats a call as touching anything.
   */
  guarded?: boolean
  /** Hears every outcome, failed ones too (e.g. to count CPU time). */
  onOutcome?: (outcome: RunJsOutcome) => void
}

/**
 * `run_js`: runs one program (an async function body) with the workspace API. A failed program is a
 * {@link ToolError} whose message carries the error, its line and the last logs, so the model can fix it.
 */
export function runJsTool(runner: RunJsRunner, options: RunJsToolOptions = {}) {
  const guarded = options.guarded === true
  const onOutcome = options.onOutcome
  return defineTool({
    description: options.description ?? RUN_JS_DESCRIPTION,
    inputSchema: z.object({
      code: z.string().min(1).describe('The program: an async function body in JavaScript or TypeScript. `return` the result.'),
      description: z.string().max(300).optional().describe('What it does, for the log'),
    }),
    access: () => ({ access: 'write', paths: [], ...(guarded ? { perOperation: true } : {}) }),
    async execute({ code }, options) {
      const outcome = await traceRunJs(() => runner.run(code, { signal: options.abortSignal }))
      onOutcome?.(outcome)
      if (!outcome.success) {
        const e: RunJsOutcomeError = outcome.error ?? { name: 'Error', message: 'the program failed' }
        if (e.host) {
          // Not the program's fault: no "fix the program", no retry that cannot help.
          throw new ToolError(
            'unavailable',
            'run_js is unavailable on this host (a fault of the host, not of your program).',
            'do not call run_js again; use the file tools, or tell the user that programs cannot run here.',
          )
        }
        const logs = outcome.logs.length > 0 ? ` Logs: ${JSON.stringify(outcome.logs.slice(-20))}.` : ''
        throw new ToolError(
          'failed',
          `${e.name}: ${e.message}${e.line !== undefined ? ` (line ${e.line})` : ''}.${logs}`,
          'fix the program and call run_js again; test on one file first if unsure.',
          {
            ...(outcome.scriptPath ? { scriptPath: outcome.scriptPath } : {}),
          },
        )
      }
      return outcome
    },
  })
}
