import type { EventLine, LiveListener, LiveSubscription, TailEvent, TailListener } from 'agent-vfs/session'
import { SocketLiveText } from './socket-live.js'

/** What a hibernatable socket carries across evictions: its session and the last sequence sent. */
interface SocketState {
  session: string
  sent: number
  /** Whose socket it is: counted against the owner's `maxStreams`. */
  owner?: string
  /** Asked with `?batch=1`: each message is a JSON array of the events of one read (a catch-up page, a tail batch). */
  batch?: true
  /** Asked with `?live=1`: also the live text of a running execution (see socket-live.ts). */
  live?: true
}

/** Where the sockets' events come from: the store for catch-ups, the host's shared tail for the rest. */
export interface SocketLog {
  /** Stored events after `after`, as their JSON lines. */
  read(sessionId: string, after: number, limit: number): Promise<EventLine[]>
  /** Joins the session's shared tail (the one its SSE observers read too); see `SessionHost.tail`. */
  tail(sessionId: string, listener: TailListener): Promise<{ head: number; off: () => void }>
  /** The host's live text of a session (see `SessionHost.liveText`). */
  live?(sessionId: string, listener: LiveListener): LiveSubscription
}

/** Events read per page while catching a socket up. */
const PAGE = 1000

/** The tail of one session while any of its sockets is open on this instance. */
interface Joined {
  /** The last sequence the tail handed out (or its head when joined). */
  head: number
  off: () => void
}

/**
 * The WebSocket observers of one Durable Object, through the hibernation API: the runtime keeps
 * the sockets while the object sleeps, and each socket's attachment remembers the last sequence it
 * was sent. The sockets share the host's tail with the object's SSE observers (log-tail.ts): each
 * new batch is read from the store once and sent to every socket that has caught up. A socket that
 * has not (just accepted with `after`, or found open after the object woke) reads its missing
 * events from the store up to the tail's head, sockets at the same sequence sharing each read, then
 * joins the live ones with no await in between, so it gets every event once and in order.
 * A socket opened with `?batch=1` gets each read as one message, a JSON array of events (a
 * catch-up of 1,000 events in one message); without it, one event per message.
 */
export class SocketHub {
  readonly #joined = new Map<string, Promise<Joined>>()
  /** Caught-up sockets: they take the tail's batches. */
  readonly #live = new Set<WebSocket>()
  readonly #catching = new Set<WebSocket>()
  /** Each socket's attachment as this instance knows it: deserialized once, written back when it changes. */
  readonly #states = new WeakMap<WebSocket, SocketState | null>()
  /** Catch-up reads in flight, by `session:after`: sockets at the same sequence share one. */
  readonly #reads = new Map<string, Promise<EventLine[]>>()
  readonly #liveText: SocketLiveText | undefined

  constructor(
    private readonly ctx: DurableObjectState,
    private readonly log: SocketLog,
  ) {
    this.#liveText = log.live ? new SocketLiveText(log.live) : undefined
  }

  /** Accepts a socket for `sessionId` that has seen events up to `after`; resolves to the 101 response. */
  accept(sessionId: string, owner: string, after: number, protocols: string | null, batch = false, live = false): Response {
    const pair = new WebSocketPair()
    const [client, server] = [pair[0], pair[1]]
    this.ctx.acceptWebSocket(server)
    const state: SocketState = {
      session: sessionId,
      sent: after,
      owner,
      ...(batch ? { batch: true as const } : {}),
      ...(live ? { live: true as const } : {}),
    }
    server.serializeAttachment(state)
    this.#states.set(server, state)
    void this.#catchUp(server)
    // A browser that offered the token as a subprotocol fails the handshake unless one is chosen.
    const offered = protocols?.split(',').map(p => p.trim()) ?? []
    return new Response(null, {
      status: 101,
      webSocket: client,
      ...(offered.includes('agent-vfs') ? { headers: { 'sec-websocket-protocol': 'agent-vfs' } } : {}),
    })
  }

  /** The open sockets of `owner` (they outlive the object's sleep, so the runtime's list is the count). */
  count(owner: string): number {
    let n = 0
    for (const ws of this.ctx.getWebSockets()) if (this.#state(ws)?.owner === owner) n++
    return n
  }

  /**
   * After the host committed: sockets this instance does not follow yet (it woke from hibernation
   * with sockets open) catch up and join the tail; the others hear the commit through the tail.
   */
  push(): void {
    const sockets = this.ctx.getWebSockets()
    if (sockets.length === this.#live.size + this.#catching.size) return
    for (const ws of sockets) void this.#catchUp(ws)
  }

  /** A socket the client closed: it leaves; the last one leaves the tail. */
  closed(ws: WebSocket): void {
    const state = this.#state(ws)
    this.#live.delete(ws)
    this.#catching.delete(ws)
    this.#liveText?.leave(ws)
    if (state) this.#leaveIfAlone(state.session)
  }

  #state(ws: WebSocket): SocketState | null {
    let state = this.#states.get(ws)
    if (state === undefined) this.#states.set(ws, (state = ws.deserializeAttachment() as SocketState | null))
    return state
  }

  #join(sessionId: string): Promise<Joined> {
    let joined = this.#joined.get(sessionId)
    if (!joined) {
      const listener: TailListener = batch => void joined!.then(j => this.#deliver(sessionId, j, batch))
      joined = this.log.tail(sessionId, listener).then(({ head, off }) => ({ head, off }))
      this.#joined.set(sessionId, joined)
      joined.catch(() => this.#joined.delete(sessionId))
    }
    return joined
  }

  #leaveIfAlone(sessionId: string): void {
    for (const ws of [...this.#live, ...this.#catching]) if (this.#state(ws)?.session === sessionId) return
    const joined = this.#joined.get(sessionId)
    this.#joined.delete(sessionId)
    void joined?.then(
      j => j.off(),
      () => undefined,
    )
  }

  /** A batch of the tail: every caught-up socket of the session gets what it has not been sent. */
  #deliver(sessionId: string, joined: Joined, batch: TailEvent[]): void {
    if (batch.length === 0) return
    joined.head = Math.max(joined.head, batch[batch.length - 1].event.seq)
    this.#liveText?.stored(sessionId, batch)
    for (const ws of this.#live) {
      const state = this.#state(ws)
      if (state?.session !== sessionId) continue
      this.#send(
        ws,
        state,
        batch.map(e => ({ seq: e.event.seq, type: e.event.type, json: e.json })),
      )
    }
  }

  /** Sends the lines after the socket's sequence, remembers the last one (once per batch); false once the socket is done. */
  #send(ws: WebSocket, state: SocketState, lines: Array<Pick<EventLine, 'seq' | 'type' | 'json'>>): boolean {
    const before = state.sent
    let closed = false
    try {
      const batch: string[] = []
      for (const line of lines) {
        if (line.seq <= state.sent) continue
        if (state.batch) batch.push(line.json)
        else ws.send(line.json)
        state.sent = line.seq
        if (line.type === 'session-closed') {
          closed = true
          break
        }
      }
      if (batch.length > 0) ws.send(`[${batch.join(',')}]`)
      if (state.sent !== before) ws.serializeAttachment(state)
      // As the SSE stream does: a closed session ends the stream (reopening starts a new one).
      if (closed) ws.close(1000, 'session closed')
    } catch {
      // A socket that closed meanwhile.
      closed = true
    }
    if (closed) this.closed(ws)
    return !closed
  }

  /** Reads the socket's missing events from the store up to the tail's head, then makes it live. */
  async #catchUp(ws: WebSocket): Promise<void> {
    if (this.#live.has(ws) || this.#catching.has(ws)) return
    const state = this.#state(ws)
    if (!state) return
    this.#catching.add(ws)
    try {
      const joined = await this.#join(state.session)
      while (state.sent < joined.head) {
        if (!this.#catching.has(ws)) return
        const lines = await this.#read(state.session, state.sent)
        if (!this.#catching.has(ws)) return
        if (!this.#send(ws, state, lines)) return
        // What the store no longer holds (gc took it) cannot be caught up: go on from the tail.
        if (lines.length === 0) state.sent = joined.head
      }
      // No await since the last look at the head: every later batch reaches this socket.
      this.#catching.delete(ws)
      this.#live.add(ws)
      if (state.live) this.#liveText?.join(ws, state.session, state.batch === true)
    } catch {
      // The store failed, or a session deleted under it: the next commit tries again.
      this.#catching.delete(ws)
      this.#leaveIfAlone(state.session)
    }
  }

  #read(sessionId: string, after: number): Promise<EventLine[]> {
    const key = `${sessionId}:${after}`
    let page = this.#reads.get(key)
    if (!page) {
      page = this.log.read(sessionId, after, PAGE)
      this.#reads.set(key, page)
      const forget = () => this.#reads.delete(key)
      page.then(forget, forget)
    }
    return page
  }
}
