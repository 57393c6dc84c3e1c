import type { EventLine } from 'agent-vfs/session'

/** What a hibernatable socket carries across evictions: its session and the last sequence sent. */
interface SocketState {
  session: string
  sent: number
  /** Whose socket it is: counted against the owner's `maxStreams`. */
  owner?: string
}

/** Events read per page while catching a socket up. */
const PAGE = 1000

/**
 * The WebSocket observers of one Durable Object, through the hibernation API: the runtime keeps
 * the sockets while the object sleeps, and each socket's attachment remembers the last sequence it
 * was sent. `push` sends every socket exactly the stored events after that sequence, so a socket
 * accepted with `after` first gets the missing events, then new ones; pushes never overlap (one
 * more runs after the current one when events arrive meanwhile), so no event goes twice.
 */
export class SocketHub {
  #running = false
  #again = false

  constructor(
    private readonly ctx: DurableObjectState,
    /** Stored events after `after`, as their JSON lines. */
    private readonly read: (sessionId: string, after: number, limit: number) => Promise<EventLine[]>,
  ) {}

  /** Accepts a socket for `sessionId` that has seen events up to `after`; resolves to the 101 response. */
  accept(sessionId: string, owner: string, after: number, protocols: string | null): Response {
    const pair = new WebSocketPair()
    const [client, server] = [pair[0], pair[1]]
    this.ctx.acceptWebSocket(server)
    server.serializeAttachment({ session: sessionId, sent: after, owner } satisfies SocketState)
    void this.push()
    // A browser that offered the token as a subprotocol fails the handshake unless one is chosen.
    const offered = protocols?.split(',').map((p) => p.trim()) ?? []
    return new Response(null, { status: 101, webSocket: client, ...(offered.includes('agent-vfs') ? { headers: { 'sec-websocket-protocol': 'agent-vfs' } } : {}) })
  }

  /** The open sockets of `owner` (they outlive the object's sleep, so the runtime's list is the count). */
  count(owner: string): number {
    let n = 0
    for (const ws of this.ctx.getWebSockets()) if ((ws.deserializeAttachment() as SocketState | null)?.owner === owner) n++
    return n
  }

  /** Sends every socket the events it has not been sent. */
  async push(): Promise<void> {
    if (this.#running) {
      this.#again = true
      return
    }
    this.#running = true
    try {
      do {
        this.#again = false
        await this.#sendMissing()
      } while (this.#again)
    } finally {
      this.#running = false
    }
  }

  async #sendMissing(): Promise<void> {
    // Sockets at the same sequence share one read.
    const pages = new Map<string, Promise<EventLine[]>>()
    for (const ws of this.ctx.getWebSockets()) {
      const state = ws.deserializeAttachment() as SocketState | null
      if (!state) continue
      try {
        for (;;) {
          const key = `${state.session}:${state.sent}`
          let page = pages.get(key)
          if (!page) pages.set(key, (page = this.read(state.session, state.sent, PAGE)))
          const lines = await page
          let closed = false
          for (const line of lines) {
            ws.send(line.json)
            state.sent = line.seq
            if (line.type === 'session-closed') {
              closed = true
              break
            }
          }
          ws.serializeAttachment(state)
          // As the SSE stream does: a closed session ends the stream (reopening starts a new one).
          if (closed) ws.close(1000, 'session closed')
          if (closed || lines.length < PAGE) break
        }
      } catch {
        // A socket that closed meanwhile, or a session deleted under it: the others still get theirs.
      }
    }
  }
}
