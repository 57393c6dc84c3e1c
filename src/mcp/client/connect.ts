import type { ToolSet } from 'agent-vfs/agent'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import type { Tool } from '@modelcontextprotocol/sdk/types.js'
import { schemaValidator } from '../schema-validator.js'
import { agentToolName, checkServers, DEFAULT_CALL_TIMEOUT_MS, DEFAULT_MAX_RESULT_CHARS, type McpServerConfig } from './config.js'
import { remoteTool } from './remote-tool.js'

/** Options of {@link connectMcpTools}. */
export interface McpToolsOptions {
  servers: McpServerConfig[]
  /** Longest the connection and the tool listing of one server may take, in ms. Default 15 s. */
  connectTimeoutMs?: number
  /** The fetch the transports use. Default: the global one. */
  fetch?: typeof fetch
}

/** The tools of a profile's MCP servers, and how to let go of the connections. */
export interface McpTools {
  /** `mcp_<server>_<tool>` for every allowed tool: pass them as a profile's `tools` (and to run_js with `runJsTools`). */
  tools: ToolSet
  close(): Promise<void>
}

/** Pages of `tools/list` read at most (a server that pages forever is cut off). */
const MAX_LIST_PAGES = 20

/**
 * Connects to each MCP server (streamable HTTP), lists its tools and keeps the allowed ones. A
 * server that cannot be reached, or that lacks an allowed tool, fails the whole call with a message
 * naming it, before the agent starts. Call it in a profile's `setup` (per execution) and close it
 * when the execution ends, or keep one per host for servers that need no per-user header.
 */
export async function connectMcpTools(options: McpToolsOptions): Promise<McpTools> {
  checkServers(options.servers)
  const clients: Client[] = []
  const close = () => Promise.all(clients.map(c => c.close().catch(() => undefined))).then(() => undefined)
  try {
    const tools: ToolSet = {}
    for (const server of options.servers) {
      const client = new Client({ name: 'agent-vfs', version: '1' }, { jsonSchemaValidator: schemaValidator })
      clients.push(client)
      const listed = await connectAndList(client, server, options)
      for (const name of server.allow) {
        const tool = listed.find(t => t.name === name)
        if (!tool) {
          const has = listed.map(t => t.name).join(', ') || 'none'
          throw new Error(`MCP server ${server.name} (${server.url}) has no tool ${JSON.stringify(name)}; it has: ${has}`)
        }
        const id = agentToolName(server.name, name)
        if (tools[id]) throw new Error(`MCP tools ${server.name}.${name} and another one both become ${id}: rename a server`)
        tools[id] = remoteTool(
          {
            server: server.name,
            client: () => client,
            timeoutMs: server.timeoutMs ?? DEFAULT_CALL_TIMEOUT_MS,
            maxResultChars: server.maxResultChars ?? DEFAULT_MAX_RESULT_CHARS,
          },
          tool,
        )
      }
    }
    return { tools, close }
  } catch (error) {
    await close()
    throw error
  }
}

async function connectAndList(client: Client, server: McpServerConfig, options: McpToolsOptions): Promise<Tool[]> {
  const timeout = options.connectTimeoutMs ?? 15_000
  const transport = new StreamableHTTPClientTransport(new URL(server.url), {
    requestInit: { headers: server.headers ?? {} },
    ...(options.fetch ? { fetch: options.fetch } : {}),
  })
  try {
    await client.connect(transport, { timeout })
    const tools: Tool[] = []
    let cursor: string | undefined
    for (let page = 0; page < MAX_LIST_PAGES; page++) {
      const listed = await client.listTools(cursor === undefined ? {} : { cursor }, { timeout })
      tools.push(...listed.tools)
      cursor = listed.nextCursor
      if (!cursor) break
    }
    return tools
  } catch (error) {
    throw new Error(
      `MCP server ${server.name} (${server.url}) could not be reached: ${error instanceof Error ? error.message : String(error)}`,
      { cause: error },
    )
  }
}
