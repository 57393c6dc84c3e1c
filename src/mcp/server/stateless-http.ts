import type { Server } from '@modelcontextprotocol/sdk/server/index.js'
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js'

/**
 * Answers one streamable-HTTP MCP request with a fresh server and a stateless transport (no
 * `Mcp-Session-Id`): every POST carries all a call needs, so any host instance can answer it, one
 * that restarted included, and nothing is kept between requests. There is no standalone SSE stream
 * to resume (GET and DELETE are 405, which clients expect from a stateless server); responses are
 * JSON, one per POST.
 */
export async function serveStatelessMcp(request: Request, makeServer: () => Server | Promise<Server>): Promise<Response> {
  if (request.method !== 'POST')
    return Response.json(
      { jsonrpc: '2.0', error: { code: -32000, message: 'this MCP server is stateless: POST JSON-RPC messages' }, id: null },
      { status: 405, headers: { allow: 'POST' } },
    )
  const server = await makeServer()
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true })
  await server.connect(transport)
  try {
    return await transport.handleRequest(request)
  } finally {
    // With JSON responses the answer is complete once handleRequest resolves.
    await server.close().catch(() => undefined)
  }
}
