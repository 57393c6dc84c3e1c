import type { RunJsTool, RunJsToolFunction, RunJsSchema } from '../types.js'

/**
 * The guest-side name of a tool id, as Mastra's Code Mode spells it: every character that cannot be
 * in an identifier becomes `_`, and a leading digit gets a `_` in front (`my-tool` → `my_tool`).
 */
export function sanitizeToolId(id: string): string {
  const name = id.replace(/[^A-Za-z0-9_$]/g, '_')
  return /^[A-Za-z_$]/.test(name) ? name : '_' + name
}

/** A tool ready to dispatch. */
export interface BoundTool {
  id: string
  /** Global name in the guest: `external_<sanitized id>`. */
  globalName: string
  schema?: RunJsSchema
  execute: RunJsToolFunction
}

/** Validates the tool map once, so a bad one fails at `createRunJs`, not in the middle of a run. */
export function bindTools(tools: Record<string, RunJsTool> = {}): Map<string, BoundTool> {
  const byId = new Map<string, BoundTool>()
  const byName = new Map<string, string>()
  for (const [id, tool] of Object.entries(tools)) {
    const execute = typeof tool === 'function' ? tool : tool?.execute
    if (typeof execute !== 'function') throw new TypeError(`run_js: tool "${id}" must be a function or { execute }`)
    const globalName = 'external_' + sanitizeToolId(id)
    const clash = byName.get(globalName)
    if (clash !== undefined) throw new TypeError(`run_js: tool ids "${clash}" and "${id}" both become ${globalName}; rename one`)
    byName.set(globalName, id)
    byId.set(id, { id, globalName, execute, schema: typeof tool === 'function' ? undefined : tool.inputSchema })
  }
  return byId
}

/** Checks input against a tool's schema; throws a `ValidationError` the guest can read. */
export async function validateInput(tool: BoundTool, input: unknown): Promise<unknown> {
  if (!tool.schema) return input
  const result = await tool.schema['~standard'].validate(input)
  if (!result.issues) return result.value
  const problems = result.issues.map(i => (i.path && i.path.length ? `${i.path.map(String).join('.')}: ` : '') + i.message)
  const error = new Error(`invalid input for ${tool.globalName}: ${problems.join('; ')}`)
  error.name = 'ValidationError'
  throw error
}
