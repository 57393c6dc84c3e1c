import { Server } from '@modelcontextprotocol/sdk/server/index.js'
import { CfWorkerJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/cfworker'
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js'
import { serveStatelessMcp } from '../../src/mcp/index.js'

/** The input schema of `set_level`: what a client must check, since this server does not. */
export const LEVEL_SCHEMA = {
  type: 'object',
  properties: { level: { type: 'integer', minimum: 1, maximum: 10 }, note: { type: 'string', maxLength: 20 } },
  required: ['level'],
  additionalProperties: false,
} as const

/**
 * An MCP server that trusts its clients: its one tool, `set_level`, publishes a strict input schema
 * but runs whatever arguments arrive (many real servers do). `calls` holds the arguments that
 * reached it. A fetch function (Request in, Response out), so it runs in Node and in workerd alike.
 */
export function lenientServer(): { fetch: typeof fetch; calls: unknown[] } {
  const calls: unknown[] = []
  const make = () => {
    const server = new Server(
      { name: 'lenient', version: '1' },
      { capabilities: { tools: {} }, jsonSchemaValidator: new CfWorkerJsonSchemaValidator() },
    )
    server.setRequestHandler(ListToolsRequestSchema, () => ({
      tools: [{ name: 'set_level', description: 'Sets the level (1 to 10)', inputSchema: LEVEL_SCHEMA as never }],
    }))
    server.setRequestHandler(CallToolRequestSchema, request => {
      calls.push(request.params.arguments)
      return { content: [{ type: 'text', text: `level set to ${JSON.stringify(request.params.arguments?.level)}` }] }
    })
    return server
  }
  const served = (input: string | URL | Request, init?: RequestInit) =>
    serveStatelessMcp(input instanceof Request ? input : new Request(input, init), make)
  return { fetch: served as typeof fetch, calls }
}
