import type { Vfs } from 'agent-vfs'
import type { ToolSet } from 'agent-vfs/agent'
import { Server } from '@modelcontextprotocol/sdk/server/index.js'
import {
  CallToolRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  ReadResourceRequestSchema,
  SubscribeRequestSchema,
  UnsubscribeRequestSchema,
} from '@modelcontextprotocol/sdk/types.js'
import { callListedTool, listedTools } from './tool-calls.js'
import { listResources, readResource, RESOURCE_PREFIX, resourcePath, resourceUri } from './resources.js'
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
  /**
   * Serves `resources/subscribe` and `resources/unsubscribe` (and says so in the capabilities, with
   * `listChanged`): the transport that sends the notifications keeps them (see `mountSessionMcp`).
   */
  subscriptions?: { subscribe(uri: string): void; unsubscribe(uri: string): void }
}

/**
 * An MCP server (the SDK's low-level `Server`) over a workspace: its tools as MCP tools (the same
 * names, schemas and errors as the model gets) and its files as resources (`vfs:///work/a.md`,
 * listed in pages, read as text or base64). Connect it to any transport; the session hosts give it a
 * stateless streamable-HTTP one per request (see `mountSessionMcp`).
 */
export function workspaceMcpServer(options: WorkspaceMcpServerOptions): Server {
  const { tools, vfs, subscriptions } = options
  const server = new Server(
    { name: options.name ?? 'agent-vfs', version: '1' },
    {
      capabilities: { tools: {}, resources: subscriptions ? { subscribe: true, listChanged: true } : {} },
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
  if (subscriptions) {
    server.setRequestHandler(SubscribeRequestSchema, request => (subscriptions.subscribe(subscribedUri(request.params.uri)), {}))
    server.setRequestHandler(UnsubscribeRequestSchema, request => (subscriptions.unsubscribe(subscribedUri(request.params.uri)), {}))
  }
  return server
}

/** The URI as notifications name it (each segment percent-encoded once); a URI that names no workspace path is refused. */
function subscribedUri(uri: string): string {
  return resourceUri(resourcePath(uri))
}
