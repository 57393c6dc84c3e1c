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

/** What the model reads about `run_js` (the agent runtime's tool and `agent-vfs/mastra`'s use the same). */
export const RUN_JS_DESCRIPTION = `Run a JavaScript or TypeScript program (the body of an async function; \`return\` gives the result) in a sandbox over the workspace.
Available: await vfs.read(path) → string, vfs.readBytes(path) → Uint8Array, vfs.write(path, string | bytes | JSON value), vfs.list(path, { recursive }), vfs.stat(path), vfs.exists(path), vfs.remove(path, { recursive }), vfs.glob(pattern), vfs.grep(pattern, { regex, ignoreCase, paths, context }) (regex in RE2 syntax: no backreferences or lookaround), console.log/info/warn/error.
There is no network, no timers, no require/import. Only JSON values cross back: return plain data. Limits: memory, time, output size; large results are saved to a file whose path is returned.
Prefer one program that reads, filters and aggregates over many separate file calls.`

/** Options of {@link runJsTool}. */
export interface RunJsToolOptions {
  /** What the model reads about the tool. Default {@link RUN_JS_DESCRIPTION}. */
  description?: string
  /**
   * Declares that the runner's workspace checks the policy on each file operation (what
   * `createWorkspaceTools` builds); otherwise the policy treats a call as touching anything.
   */
  guarded?: boolean
}

/**
 * `run_js`: runs one program (an async function body) with the workspace API. A failed program is a
 * {@link ToolError} whose message carries the error, its line and the last logs, so the model can fix it.
 */
export function runJsTool(runner: RunJsRunner, options: RunJsToolOptions = {}) {
  const guarded = options.guarded === true
  return defineTool({
    description: options.description ?? RUN_JS_DESCRIPTION,
    inputSchema: z.object({
      code: z.string().min(1).describe('The program: an async function body in JavaScript or TypeScript. `return` the result.'),
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
