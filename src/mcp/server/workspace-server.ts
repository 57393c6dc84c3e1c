import type { Vfs } from 'agent-vfs'
import type { ToolSet } from 'agent-vfs/agent'
import { Server } from '@modelcontextprotocol/sdk/server/index.js'
import {
  CallToolRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  ReadResourceRequestSchema,
} from '@modelcontextprotocol/sdk/types.js'
import { callListedTool, listedTools } from './tool-calls.js'
import { listResources, readResource, RESOURCE_PREFIX } from './resources.js'
import { schemaValidator } from '../schema-validator.js'

/** Options of {@link workspaceMcpServer}. */
export interface WorkspaceMcpServerOptions {
  /** The tools to serve, e.g. `createWorkspaceTools({ vfs, runJs })`. */
  tools: ToolSet
  /** The workspace whose files are the resources (the view the tools work on). */
  vfs: Vfs
  /** How the server introduces itself. Default `agent-vfs`. */
  name?: string
  /** What a client reads about the server when it connects. */
  instructions?: string
}

/**
 * An MCP server (the SDK's low-level `Server`) over a workspace: its tools as MCP tools (the same
 * names, schemas and errors as the model gets) and its files as resources (`vfs:///work/a.md`,
 * listed in pages, read as text or base64). Connect it to any transport; the session hosts give it a
 * stateless streamable-HTTP one per request (see `mountSessionMcp`).
 */
export function workspaceMcpServer(options: WorkspaceMcpServerOptions): Server {
  const { tools, vfs } = options
  const server = new Server(
    { name: options.name ?? 'agent-vfs', version: '1' },
    {
      capabilities: { tools: {}, resources: {} },
      // The tools parse their own input; the SDK's validator is the workerd-safe one (ajv generates code, which Workers forbid).
      jsonSchemaValidator: schemaValidator,
      ...(options.instructions ? { instructions: options.instructions } : {}),
    },
  )
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: listedTools(tools) }))
  server.setRequestHandler(CallToolRequestSchema, (request, extra) =>
    callListedTool(tools, request.params.name, request.params.arguments, extra.signal),
  )
  server.setRequestHandler(ListResourcesRequestSchema, request => listResources(vfs, request.params?.cursor))
  server.setRequestHandler(ListResourceTemplatesRequestSchema, () => ({
    resourceTemplates: [
      { uriTemplate: `${RESOURCE_PREFIX}{+path}`, name: 'workspace file', description: 'Any file of the workspace by its absolute path' },
    ],
  }))
  server.setRequestHandler(ReadResourceRequestSchema, request => readResource(vfs, request.params.uri))
  return server
}
