import type { AgentTool, ToolSet } from 'agent-vfs/agent'

/** How a wrapper runs one call: `call` runs the tool itself. */
export type AroundCall = (tool: AgentTool, input: unknown, call: () => Promise<unknown>) => Promise<unknown>

/** The same tools, each call run through `around` (to count, to observe failures); everything else unchanged. */
export function wrapTools(tools: ToolSet, around: AroundCall): ToolSet {
  return Object.fromEntries(
    Object.entries(tools).map(([name, tool]) => [
      name,
      {
        ...tool,
        execute: (input: unknown, options?: Parameters<AgentTool['execute']>[1]) => around(tool, input, () => tool.execute(input, options)),
      },
    ]),
  )
}
