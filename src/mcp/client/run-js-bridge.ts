import { evaluatePolicy, type PolicyRule, type ToolSet } from 'agent-vfs/agent'
import type { RunJsTool } from 'agent-vfs'

/**
 * Tools for run_js (`createRunJs({ vfs, tools: runJsTools(mcp.tools, rules) })`): the program calls
 * `external_mcp_docs_search({ q })`. Each call is decided by `rules` first, as runTask decides a
 * direct call: `deny` fails it, and so does `ask` (a program cannot wait for a person: the model
 * calls the tool directly, where it can be approved). The call gets the run's signal, so the run's
 * deadline and abort end it; its time counts against the run.
 */
export function runJsTools(tools: ToolSet, rules: () => readonly PolicyRule[] = () => []): Record<string, RunJsTool> {
  return Object.fromEntries(
    Object.entries(tools).map(([name, tool]) => [
      name,
      {
        inputSchema: tool.inputSchema,
        async execute(input: unknown, context: { signal: AbortSignal }) {
          const verdict = evaluatePolicy(rules(), name, tool.access(input), tool.kind)
          if (verdict.decision === 'deny') throw new Error(`the policy does not let run_js call ${name}: ${verdict.reason}`)
          if (verdict.decision === 'ask')
            throw new Error(
              `${name} needs a person's approval (${verdict.reason}), which a program cannot wait for: call ${name} as a tool instead`,
            )
          return tool.execute(input, { abortSignal: context.signal })
        },
      } satisfies RunJsTool,
    ]),
  )
}
