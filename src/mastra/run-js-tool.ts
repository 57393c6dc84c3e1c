import { createTool } from '@mastra/core/tools'
import { createRunJs, type RunJsOptions, type Vfs } from 'agent-vfs'
import { runJsTool as agentRunJsTool, type RunJsToolOptions } from 'agent-vfs/agent'

/** Options of {@link runJsTool}: those of `createRunJs` (without `vfs`), the tool's id and description. */
export interface MastraRunJsToolOptions extends Omit<RunJsOptions, 'vfs'>, RunJsToolOptions {
  /** The tool id. Default `run_js`. */
  id?: string
}

/**
 * `run_js` as a Mastra tool over a workspace (or a run scope): the agent runtime's `run_js` tool
 * (`agent-vfs/agent`), adapted to Mastra's `createTool`. The model sends a program and gets
 * `{ success, result, logs, scriptPath, resultPath?, bytes? }` back; a failed program is a tool error
 * naming the error, its line and the last logs.
 *
 * ```ts
 * const agent = new Agent({ …, tools: { run_js: runJsTool(scopeRun(vfs, { runId })) } })
 * ```
 */
export function runJsTool(vfs: Vfs, options: MastraRunJsToolOptions = {}) {
  const { id = 'run_js', description, ...runOptions } = options
  const tool = agentRunJsTool(createRunJs({ vfs, ...runOptions }), { description })
  return createTool({
    id,
    description: tool.description,
    inputSchema: tool.inputSchema,
    execute: async (input, context) => tool.execute(input, { abortSignal: context?.abortSignal }),
  })
}
