import { LiveCursor, type LiveDelta, type LiveListener, type LiveSubscription, type TailEvent } from 'agent-vfs/session'

/**
 * The live text for the WebSockets that asked for it (`?live=1`): one subscription per session to
 * the host's live text while any such socket is caught up, and per socket a {@link LiveCursor},
 * so it gets the text so far once when it goes live and then each piece once. Messages are the
 * deltas as JSON (`type: "delta"`, no `seq`; as one array with `?batch=1`). Nothing is kept across
 * hibernation: an object that sleeps runs no execution, so it has no live text.
 */
export class SocketLiveText {
  readonly #subs = new Map<string, LiveSubscription>()
  readonly #sockets = new Map<WebSocket, { session: string; batch: boolean; cursor: LiveCursor }>()

  constructor(private readonly subscribe: (sessionId: string, listener: LiveListener) => LiveSubscription) {}

  /** A socket caught up with the stored events: it gets the text so far, then the deltas. */
  join(ws: WebSocket, sessionId: string, batch: boolean): void {
    let sub = this.#subs.get(sessionId)
    if (!sub) this.#subs.set(sessionId, (sub = this.subscribe(sessionId, deltas => this.#deliver(sessionId, deltas))))
    const entry = { session: sessionId, batch, cursor: new LiveCursor(sub.snapshot) }
    this.#sockets.set(ws, entry)
    this.#send(ws, entry, sub.snapshot())
  }

  /** Stored events the socket was sent: a stream's durable text ends its deltas. */
  stored(sessionId: string, events: TailEvent[]): void {
    for (const entry of this.#sockets.values()) if (entry.session === sessionId) for (const e of events) entry.cursor.stored(e.event)
  }

  leave(ws: WebSocket): void {
    const entry = this.#sockets.get(ws)
    if (!entry) return
    this.#sockets.delete(ws)
    for (const other of this.#sockets.values()) if (other.session === entry.session) return
    this.#subs.get(entry.session)?.off()
    this.#subs.delete(entry.session)
  }

  #deliver(sessionId: string, deltas: LiveDelta[]): void {
    for (const [ws, entry] of this.#sockets) if (entry.session === sessionId) this.#send(ws, entry, deltas)
  }

  #send(ws: WebSocket, entry: { batch: boolean; cursor: LiveCursor }, deltas: LiveDelta[]): void {
    const out = deltas.flatMap(d => entry.cursor.cut(d) ?? [])
    if (out.length === 0) return
    try {
      if (entry.batch) ws.send(JSON.stringify(out))
      else for (const d of out) ws.send(JSON.stringify(d))
    } catch {
      this.leave(ws) // closed meanwhile
    }
  }
}
