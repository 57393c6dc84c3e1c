import { z } from 'zod'
import { defineTool, ToolError } from './tool.js'

/** What a run_js program produced; the shape `createRunJs(...).run()` resolves to. */
export interface RunJsOutcome {
  success: boolean
  result?: unknown
  logs: readonly unknown[]
  error?: { name: string; message: string; line?: number }
  /** Where the program was archived in the workspace. */
  scriptPath?: string
  /** Where a large result was written instead of being returned. */
  resultPath?: string
  bytes?: number
}

/** Anything that runs a model-written program against the workspace, e.g. `createRunJs({ vfs })`. */
export interface RunJsRunner {
  run(code: string, options?: { signal?: AbortSignal }): Promise<RunJsOutcome>
}

/**
 * `run_js`: runs one JavaScript program (an async function body) with the workspace API.
 * `guarded: true` declares that the runner's workspace checks the policy on each file operation
 * (what {@link createWorkspaceTools} builds); otherwise the policy treats a call as touching anything.
 */
export function runJsTool(runner: RunJsRunner, options: { guarded?: boolean } = {}) {
  const guarded = options.guarded === true
  return defineTool({
    description:
      'Run a JavaScript program (the body of an async function; `return` gives the result) for bulk work on files: ' +
      'await vfs.list(dir), vfs.read(path), vfs.write(path, text), vfs.glob(pattern), vfs.grep(pattern), console.log. ' +
      'No require, fetch or timers. Prefer it over many single file calls.',
    inputSchema: z.object({
      code: z.string().min(1).describe('The program'),
      description: z.string().max(300).optional().describe('What it does, for the log'),
    }),
    access: () => ({ access: 'write', paths: [], ...(guarded ? { perOperation: true } : {}) }),
    async execute({ code }, options) {
      const outcome = await runner.run(code, { signal: options.abortSignal })
      if (!outcome.success) {
        const e = outcome.error ?? { name: 'Error', message: 'the program failed' }
        const logs = outcome.logs.length > 0 ? ` Logs: ${JSON.stringify(outcome.logs.slice(-20))}.` : ''
        throw new ToolError('failed', `${e.name}: ${e.message}${e.line !== undefined ? ` (line ${e.line})` : ''}.${logs}`, 'fix the program and call run_js again; test on one file first if unsure.', {
          ...(outcome.scriptPath ? { scriptPath: outcome.scriptPath } : {}),
        })
      }
      return outcome
    },
  })
}
