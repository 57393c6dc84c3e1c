import type { ExecutionDelta } from 'agent-vfs/agent'

/**
 * A piece of assistant text or reasoning as the model streams it, as observers get it: never
 * stored, no `seq`. Apply it as `text = text.slice(0, at) + delta` to the stream `streamId`; the
 * durable `text` (or `reasoning`) event with the same `streamId` replaces the stream's text, and
 * `discarded` says none will come (the model call failed or was aborted).
 */
export type LiveDelta = ExecutionDelta & { type: 'delta' }

/** Receives coalesced deltas: at most one batch per coalescing window, a stream's pieces merged. */
export type LiveListener = (deltas: LiveDelta[]) => void

/** What a subscriber to a session's live text holds. */
export interface LiveSubscription {
  /** The text so far of every stream still open (`at: 0`): what a joining observer shows first. */
  snapshot(): LiveDelta[]
  off(): void
}

/** Deltas of one session published within this window go out together. */
export const COALESCE_MS = 25

interface SessionLive {
  /** Open streams' text so far, as a delta from 0. */
  readonly streams: Map<string, LiveDelta>
  readonly listeners: Set<LiveListener>
  /** Per stream, where its text not handed out yet starts (or its discard). */
  readonly pending: Map<string, LiveDelta>
  timer: ReturnType<typeof setTimeout> | undefined
  lastFlush: number
}

/**
 * The live text of the sessions whose executions run on this host: the runner's deltas, held
 * per open stream (so an observer that joins mid-turn gets the text so far, once) and handed to
 * the session's observers coalesced: the first delta after a quiet window goes out at once (the
 * first visible token is not delayed), later ones at most once per {@link COALESCE_MS}. Nothing
 * here is written to the store: a turn's durable writes are its events, whatever the token rate.
 * Live text exists only on the host that runs the execution; observers elsewhere get the durable
 * `text` event when the call ends.
 */
export class LiveTexts {
  readonly #sessions = new Map<string, SessionLive>()

  constructor(private readonly coalesceMs = COALESCE_MS) {}

  #session(sessionId: string): SessionLive {
    let s = this.#sessions.get(sessionId)
    if (!s)
      this.#sessions.set(sessionId, (s = { streams: new Map(), listeners: new Set(), pending: new Map(), timer: undefined, lastFlush: 0 }))
    return s
  }

  /** A delta from the runner of an execution of `sessionId`. */
  publish(sessionId: string, delta: ExecutionDelta): void {
    const s = this.#session(sessionId)
    const live: LiveDelta = { type: 'delta', ...delta }
    if (delta.discarded) s.streams.delete(delta.streamId)
    else {
      const so = s.streams.get(delta.streamId) ?? { ...live, at: 0, delta: '' }
      so.delta = so.delta.slice(0, delta.at) + delta.delta
      s.streams.set(delta.streamId, so)
    }
    if (s.listeners.size === 0) {
      s.pending.clear()
      return this.#dropIfIdle(sessionId, s)
    }
    // Pending is where each stream's unsent text starts; the text itself is read from the stream at the flush.
    const p = s.pending.get(delta.streamId)
    s.pending.set(delta.streamId, p && !p.discarded && !delta.discarded ? { ...p, at: Math.min(p.at, delta.at) } : live)
    if (delta.discarded) return this.#flush(sessionId, s)
    const wait = s.lastFlush + this.coalesceMs - Date.now()
    if (s.timer !== undefined) return
    if (wait <= 0) this.#flush(sessionId, s)
    else s.timer = setTimeout(() => this.#flush(sessionId, s), wait)
  }

  /** The durable event of `streamId` was logged: what is pending of it goes out, and it leaves the snapshot. */
  end(sessionId: string, streamId: string): void {
    const s = this.#sessions.get(sessionId)
    if (!s) return
    if (s.pending.has(streamId)) this.#flush(sessionId, s)
    s.streams.delete(streamId)
    this.#dropIfIdle(sessionId, s)
  }

  /** An execution stopped running here: its open streams are discarded (a crash of the call left them). */
  endExecution(sessionId: string, executionId: string): void {
    const s = this.#sessions.get(sessionId)
    if (!s) return
    for (const d of [...s.streams.values()])
      if (d.executionId === executionId) this.publish(sessionId, { ...d, at: 0, delta: '', discarded: true })
    this.#dropIfIdle(sessionId, s)
  }

  /** Starts hearing a session's deltas; `snapshot()` gives the text so far. */
  subscribe(sessionId: string, listener: LiveListener): LiveSubscription {
    const s = this.#session(sessionId)
    s.listeners.add(listener)
    return {
      snapshot: () => [...s.streams.values()].map(d => ({ ...d })),
      off: () => {
        s.listeners.delete(listener)
        this.#dropIfIdle(sessionId, s)
      },
    }
  }

  #flush(sessionId: string, s: SessionLive): void {
    clearTimeout(s.timer)
    s.timer = undefined
    s.lastFlush = Date.now()
    if (s.pending.size === 0) return
    const batch = [...s.pending.values()].map(p => {
      const text = s.streams.get(p.streamId)?.delta
      return p.discarded || text === undefined ? p : { ...p, delta: text.slice(p.at) }
    })
    s.pending.clear()
    for (const listener of [...s.listeners]) {
      try {
        listener(batch)
      } catch {
        // one observer's failure must not stop the others
      }
    }
    this.#dropIfIdle(sessionId, s)
  }

  #dropIfIdle(sessionId: string, s: SessionLive): void {
    if (s.listeners.size === 0 && s.streams.size === 0 && s.timer === undefined && this.#sessions.get(sessionId) === s) {
      s.pending.clear()
      this.#sessions.delete(sessionId)
    }
  }
}
