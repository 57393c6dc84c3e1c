import type { Server } from '@modelcontextprotocol/sdk/server/index.js'
import type { SessionHost } from 'agent-vfs/session'
import type { LiveClient, LiveClients } from './live-clients.js'
import { jsonRpcError, serveLiveStream } from './live-stream.js'
import { serveStatelessMcp } from './stateless-http.js'

/** The request of a live MCP client of one session (its owner checked by the caller). */
export interface LiveRequest {
  request: Request
  host: SessionHost
  clients: LiveClients
  sessionId: string
  owner: string
  /** How often a stream's tail looks at the store without a signal (default: the host's). */
  pollMs?: number
  /** A server for this request; given the client, it serves `resources/subscribe` for it. */
  makeServer(client: LiveClient | undefined): Server | Promise<Server>
}

/**
 * The streamable-HTTP endpoint of a session with live clients. Every POST is still answered by a
 * fresh server with a JSON answer (any host instance can answer it, one that restarted included);
 * what lives on is small and bounded: the client's subscriptions, kept by its `Mcp-Session-Id`
 * (given with the answer to `initialize`), and its GET stream of notifications, derived from the
 * session's durable event log (`serveLiveStream`). DELETE forgets the client.
 */
export async function serveLiveMcp(live: LiveRequest): Promise<Response> {
  const { request, clients, sessionId, owner } = live
  const header = request.headers.get('mcp-session-id')
  const client = header === null ? undefined : clients.resolve(header, sessionId, owner)
  // Not found, for an id of another session or owner as for a malformed one: the client starts anew (spec).
  if (header !== null && !client) return jsonRpcError(404, 'unknown Mcp-Session-Id: initialize again')
  if (request.method === 'POST') {
    if (await isInitialize(request)) {
      const fresh = clients.create(sessionId, owner)
      const answer = await serveStatelessMcp(request, () => live.makeServer(fresh))
      if (!answer.ok) {
        clients.drop(fresh)
        return answer
      }
      const headers = new Headers(answer.headers)
      headers.set('mcp-session-id', fresh.id)
      return new Response(answer.body, { status: answer.status, headers })
    }
    return serveStatelessMcp(request, () => live.makeServer(client))
  }
  if (request.method === 'GET') {
    if (!(request.headers.get('accept') ?? '').includes('text/event-stream'))
      return jsonRpcError(406, 'the GET stream is text/event-stream: send Accept: text/event-stream')
    if (!client) return jsonRpcError(400, 'send the Mcp-Session-Id the answer to initialize gave')
    return serveLiveStream(request, live.host, client, clients.limits, live.pollMs)
  }
  if (request.method === 'DELETE') {
    if (!client) return jsonRpcError(400, 'send the Mcp-Session-Id to end')
    clients.drop(client)
    return new Response(null, { status: 200 })
  }
  return jsonRpcError(405, 'POST JSON-RPC messages, GET the notification stream, DELETE to end', { allow: 'GET, POST, DELETE' })
}

/** Whether the POST is an `initialize` (alone or in a batch). A body that does not parse is the transport's to refuse. */
async function isInitialize(request: Request): Promise<boolean> {
  try {
    const body = (await request.clone().json()) as unknown
    const messages = Array.isArray(body) ? body : [body]
    return messages.some(m => typeof m === 'object' && m !== null && (m as { method?: unknown }).method === 'initialize')
  } catch {
    return false
  }
}
