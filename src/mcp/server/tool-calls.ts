import { toolSpecs, type ToolSet } from 'agent-vfs/agent'
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js'

/** Longest text one tool result sends (the tools bound their own output; this bounds what they did not foresee). */
export const MAX_RESULT_CHARS = 1_000_000

/** The tools as MCP lists them: the same names, descriptions and JSON Schema inputs the model gets. */
export function listedTools(tools: ToolSet): Tool[] {
  return toolSpecs(tools).map(spec => ({
    name: spec.name,
    description: spec.description,
    inputSchema: { type: 'object', ...spec.inputSchema } as Tool['inputSchema'],
  }))
}

/**
 * Calls one tool as runTask would (the tool validates its input itself) and answers as MCP wants:
 * a string result as the text itself (clients show it as it is: never JSON of the text, whose
 * quotes and `\n` escapes they would show), an object as `structuredContent` with its JSON as the
 * text rendering (other values as JSON text), or `isError` with the tool's message, which says what
 * to do next.
 */
export async function callListedTool(tools: ToolSet, name: string, input: unknown, signal: AbortSignal): Promise<CallToolResult> {
  const tool = Object.prototype.hasOwnProperty.call(tools, name) ? tools[name] : undefined
  if (!tool) return failed(`There is no tool "${name}". Next: use one of: ${Object.keys(tools).join(', ')}.`)
  try {
    const value = await tool.execute(input ?? {}, { abortSignal: signal })
    const text = typeof value === 'string' ? value : JSON.stringify(value ?? null)
    if (text.length > MAX_RESULT_CHARS)
      return failed(`The result has ${text.length} characters, more than ${MAX_RESULT_CHARS}. Next: ask for less (a range, a limit).`)
    const structured = value !== null && typeof value === 'object' && !Array.isArray(value)
    return { content: [{ type: 'text', text }], ...(structured ? { structuredContent: value as Record<string, unknown> } : {}) }
  } catch (error) {
    // The workspace tools throw ToolErrors, whose message ends with what to do next.
    return failed(error instanceof Error ? error.message : String(error))
  }
}

const failed = (text: string): CallToolResult => ({ isError: true, content: [{ type: 'text', text }] })
