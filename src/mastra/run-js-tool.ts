import { createTool } from '@mastra/core/tools'
import { z } from 'zod'
import { createRunJs } from '../run-js/index.js'
import type { RunJsOptions } from '../run-js/types.js'
import type { Vfs } from '../vfs/types.js'

/** What the model reads about `run_js`. */
export const RUN_JS_DESCRIPTION = `Run a JavaScript or TypeScript program (the body of an async function; \`return\` gives the result) in a sandbox over the workspace.
Available: await vfs.read(path) → string, vfs.readBytes(path) → Uint8Array, vfs.write(path, string | bytes | JSON value), vfs.list(path, { recursive }), vfs.stat(path), vfs.exists(path), vfs.remove(path, { recursive }), vfs.glob(pattern), vfs.grep(pattern, { regex, ignoreCase, paths, context }), console.log/info/warn/error.
There is no network, no timers, no require/import. Only JSON values cross back: return plain data. Limits: memory, time, output size; large results are saved to a file whose path is returned.
Prefer one program that reads, filters and aggregates over many separate file calls.`

const inputSchema = z.object({
  code: z.string().describe('The program: an async function body in JavaScript or TypeScript. `return` the result.'),
})

/**
 * `run_js` as a Mastra tool over a workspace (or a run scope): the model sends a program, gets
 * `{ success, result, logs, error, scriptPath, resultPath?, bytes? }` back.
 *
 * ```ts
 * const agent = new Agent({ …, tools: { run_js: runJsTool(scopeRun(vfs, { runId })) } })
 * ```
 */
export function runJsTool(vfs: Vfs, options: Omit<RunJsOptions, 'vfs'> & { id?: string; description?: string } = {}) {
  const { id = 'run_js', description = RUN_JS_DESCRIPTION, ...runOptions } = options
  const runJs = createRunJs({ vfs, ...runOptions })
  return createTool({
    id,
    description,
    inputSchema,
    execute: async (input, context) => runJs.run(input.code, { signal: context?.abortSignal }),
  })
}
