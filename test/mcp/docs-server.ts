import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { z } from 'zod'

/**
 * A stateful MCP server of the SDK's own (McpServer, the Node streamable-HTTP transport, session ids)
 * on loopback, with tools that answer, fail, take long, answer too much. Requests without
 * `authorization: Bearer docs-secret` are 401. `calls` counts tool calls; `aborted` those whose
 * client went away or cancelled before they finished.
 */
export async function startDocsServer(): Promise<{ url: string; calls: string[]; aborted: string[]; close(): Promise<void> }> {
  const calls: string[] = []
  const aborted: string[] = []
  const sessions = new Map<string, StreamableHTTPServerTransport>()
  const newServer = () => {
    const server = new McpServer({ name: 'docs', version: '1' })
    server.registerTool('search', { description: 'Search the docs', inputSchema: { q: z.string() } }, async ({ q }) => {
      calls.push(`search:${q}`)
      return { content: [{ type: 'text', text: `found 2 pages about ${q}` }] }
    })
    server.registerTool('stats', { description: 'Numbers', inputSchema: {} }, async () => {
      calls.push('stats')
      return { content: [{ type: 'text', text: '{"pages":3}' }], structuredContent: { pages: 3 } }
    })
    server.registerTool('boom', { description: 'Always fails', inputSchema: {} }, async () => {
      calls.push('boom')
      return { isError: true, content: [{ type: 'text', text: 'the index is offline' }] }
    })
    server.registerTool('huge', { description: 'Answers 300,000 characters', inputSchema: {} }, async () => {
      calls.push('huge')
      return { content: [{ type: 'text', text: 'x'.repeat(300_000) }] }
    })
    server.registerTool('slow', { description: 'Answers after ms', inputSchema: { ms: z.number() } }, async ({ ms }, extra) => {
      calls.push('slow')
      await new Promise<void>(resolve => {
        const t = setTimeout(resolve, ms)
        extra.signal.addEventListener('abort', () => (clearTimeout(t), aborted.push('slow'), resolve()))
      })
      return { content: [{ type: 'text', text: `slept ${ms}` }] }
    })
    server.registerTool('delete_everything', { description: 'Not allowed by any profile', inputSchema: {} }, async () => {
      calls.push('delete_everything')
      return { content: [{ type: 'text', text: 'gone' }] }
    })
    return server
  }
  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    if (req.headers.authorization !== 'Bearer docs-secret') {
      res.writeHead(401, { 'content-type': 'application/json' }).end('{"error":"unauthorized"}')
      return
    }
    const id = req.headers['mcp-session-id']
    let transport = typeof id === 'string' ? sessions.get(id) : undefined
    if (!transport) {
      if (typeof id === 'string') {
        res.writeHead(404).end()
        return
      }
      const t = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => crypto.randomUUID(),
        onsessioninitialized: sid => void sessions.set(sid, t),
      })
      t.onclose = () => t.sessionId && sessions.delete(t.sessionId)
      await newServer().connect(t)
      transport = t
    }
    await transport.handleRequest(req, res)
  }
  const http = createServer((req, res) => void handle(req, res).catch(() => res.writeHead(500).end()))
  await new Promise<void>(r => http.listen(0, '127.0.0.1', r))
  return {
    url: `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`,
    calls,
    aborted,
    close: async () => {
      await Promise.all([...sessions.values()].map(t => t.close()))
      await new Promise<void>(r => {
        http.close(() => r())
        http.closeAllConnections()
      })
    },
  }
}
