import type { SessionHost } from 'agent-vfs/session'
import type { LiveClient, LiveMcpLimits } from './live-clients.js'
import { notificationId, notificationsOf, resumePoint, type ResumePoint } from './resource-notifications.js'

/** Bytes a stream holds unsent for a slow client at most; beyond, it ends and the client resumes from what it saw. */
const MAX_QUEUED_BYTES = 1024 * 1024
/** How long a client waits before it reconnects a stream that ended (the SSE `retry` field). */
const RETRY_MS = 1000

const encoder = new TextEncoder()

/**
 * Answers the GET of a live MCP client: an SSE stream of the resource notifications the session's
 * events make (see `notificationsOf`), after `Last-Event-ID` when the client sends one (a resume:
 * what it missed, from the durable log, then live) or from now. Counted against the owner's stream
 * quota; ends after `idleMs` without a session event, when the client opens another stream, or
 * when it falls 1 MiB behind (the client reconnects and resumes in each case).
 */
export async function serveLiveStream(
  request: Request,
  host: SessionHost,
  client: LiveClient,
  limits: Required<LiveMcpLimits>,
  pollMs?: number,
): Promise<Response> {
  const header = request.headers.get('last-event-id')
  const resume = header === null ? undefined : resumePoint(header)
  if (header !== null && !resume) return jsonRpcError(400, 'Last-Event-ID is not an event id of this server: reconnect without it')
  const now = await head(host, client.sessionId)
  // An id past the log's end (another session's, or made up) resumes from now, not from a future that never comes.
  const point: ResumePoint = resume && resume.after <= now ? resume : { after: now, skip: 0 }
  const release = host.openStream(client.owner)
  if (!release)
    return jsonRpcError(429, 'this owner has as many event streams open as its quota allows: close one (or wait for one to end) and retry')
  client.stream?.abort()
  const stop = new AbortController()
  client.stream = stop
  let sink!: ReadableStreamDefaultController<Uint8Array>
  const body = new ReadableStream<Uint8Array>(
    { start: c => void (sink = c), cancel: () => stop.abort() },
    { highWaterMark: MAX_QUEUED_BYTES, size: chunk => chunk.byteLength },
  )
  const send = (text: string) => {
    if (stop.signal.aborted) return
    sink.enqueue(encoder.encode(text))
    if ((sink.desiredSize ?? 0) <= 0) stop.abort()
  }
  // The priming event: the client knows where it is before any notification comes.
  send(`id: ${point === resume ? header!.trim() : point.after}\nretry: ${RETRY_MS}\ndata: \n\n`)
  void pump(host, client, point, { ...limits, pollMs }, stop.signal, send).finally(() => {
    release()
    if (client.stream === stop) client.stream = undefined
    try {
      sink.close()
    } catch {
      // Already closed or cancelled by the client.
    }
  })
  return new Response(body, {
    status: 200,
    headers: { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', 'mcp-session-id': client.id },
  })
}

/** Sends the notifications of the session's events after `point` until `signal` aborts or the stream goes idle. */
async function pump(
  host: SessionHost,
  client: LiveClient,
  point: ResumePoint,
  limits: Required<LiveMcpLimits> & { pollMs?: number | undefined },
  signal: AbortSignal,
  send: (text: string) => void,
): Promise<void> {
  const watch = {
    after: point.after,
    heartbeatMs: limits.heartbeatMs,
    idleTimeoutMs: limits.idleMs,
    signal,
    ...(limits.pollMs !== undefined ? { pollMs: limits.pollMs } : {}),
  }
  try {
    for await (const e of host.observe(client.sessionId, watch)) {
      if (signal.aborted) return
      // A keep-alive that also moves the client's Last-Event-ID past events that notified nothing.
      if (e.type === 'heartbeat') send(`: heartbeat\nid: ${e.after}\ndata: \n\n`)
      else {
        const notes = notificationsOf(e, client.subscriptions)
        for (let n = e.seq === point.after + 1 ? point.skip : 0; n < notes.length; n++)
          send(`event: message\nid: ${notificationId(e.seq, n)}\ndata: ${JSON.stringify(notes[n])}\n\n`)
      }
    }
  } catch {
    // The session went away under the stream (deleted): the stream ends; the client's reconnect is told.
  }
}

/** The last sequence of the session's log now. */
async function head(host: SessionHost, sessionId: string): Promise<number> {
  // Joined and left at once: no poll is asked for.
  const { head, off } = await host.tail(sessionId, () => undefined, Infinity)
  off()
  return head
}

export function jsonRpcError(status: number, message: string, headers: Record<string, string> = {}): Response {
  return Response.json({ jsonrpc: '2.0', error: { code: -32000, message }, id: null }, { status, headers })
}
