import { isToolError, type ToolSet } from 'agent-vfs/agent'
import type { AgentProfile } from 'agent-vfs/session'
import type { McpServerConfig } from './config.js'
import { connectMcpTools, type McpTools } from './connect.js'
import { wrapTools } from '../wrap-tools.js'

/** Which execution a profile sets up (what {@link AgentProfile.setup} receives). */
export type McpExecution = Parameters<AgentProfile['setup']>[0]

/** Options of {@link withMcpServers}. */
export interface WithMcpServersOptions {
  /** Distinct server lists (their headers included) kept connected at once; the oldest is closed first. Default 50. */
  maxConnections?: number
  connectTimeoutMs?: number
}

/**
 * A profile whose executions also get the allowed tools of MCP servers (`mcp_<server>_<tool>`, see
 * {@link connectMcpTools}), decided by the profile's policy like its other tools. `servers` is read
 * per execution, so headers may depend on the owner. Connections are shared by executions with the
 * same list and kept (bounded); one whose server became unreachable is dropped, and the next
 * execution connects again. `close()` lets them all go (at shutdown).
 */
export function withMcpServers(
  profile: AgentProfile,
  servers: (execution: McpExecution) => McpServerConfig[] | Promise<McpServerConfig[]>,
  options: WithMcpServersOptions = {},
): AgentProfile & { close(): Promise<void> } {
  const max = options.maxConnections ?? 50
  const open = new Map<string, Promise<McpTools>>()
  const drop = (key: string) => {
    const entry = open.get(key)
    open.delete(key)
    void entry?.then(m => m.close()).catch(() => undefined)
  }
  const connect = (list: McpServerConfig[]): Promise<{ key: string; mcp: McpTools }> => {
    const key = JSON.stringify(list)
    let entry = open.get(key)
    if (entry) open.delete(key)
    else {
      entry = connectMcpTools({ servers: list, ...(options.connectTimeoutMs ? { connectTimeoutMs: options.connectTimeoutMs } : {}) })
      // A failed connection is not kept: the next execution tries again.
      entry.catch(() => open.get(key) === entry && open.delete(key))
    }
    open.set(key, entry)
    while (open.size > max) drop(open.keys().next().value!)
    return entry.then(mcp => ({ key, mcp }))
  }
  return {
    ...profile,
    async setup(execution) {
      const setup = await profile.setup(execution)
      const { key, mcp } = await connect(await servers(execution))
      return { ...setup, tools: { ...droppingWhenDead(mcp.tools, () => drop(key)), ...setup.tools } }
    },
    close: () => Promise.all([...open.keys()].map(drop)).then(() => undefined),
  }
}

/** The tools, the connection dropped after a call that found the server unreachable. */
function droppingWhenDead(tools: ToolSet, dead: () => void): ToolSet {
  return wrapTools(tools, async (_tool, _input, call) => {
    try {
      return await call()
    } catch (error) {
      if (isToolError(error) && error.code === 'unavailable') dead()
      throw error
    }
  })
}
