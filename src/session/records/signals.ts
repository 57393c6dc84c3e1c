import type { EventLine } from '../types.js'

/**
 * What a publication may tell besides "something changed": how far the session's log reached, and,
 * from a writer in the same process, the event lines its commit just made durable (so a tail on
 * this host hands them out without reading them back). Remote signals (NOTIFY) carry none of it.
 */
export interface SessionNews {
  /** The log's last durable sequence after the change. */
  last?: number
  /** The lines of the commit, in order, exactly as stored (durable already). */
  lines?: readonly EventLine[]
}

/**
 * How a host learns that something changed in a session (new events, an abort, a message) without
 * waiting for its next poll. `publish` is called after the change is durable.
 */
export interface SessionSignals {
  publish(sessionId: string, news?: SessionNews): void
  subscribe(sessionId: string, listener: (news?: SessionNews) => void): () => void
  close?(): Promise<void>
}

/** Signals within one process: what every host uses for its own changes (the news passes as is). */
export function localSignals(): SessionSignals {
  const listeners = new Map<string, Set<(news?: SessionNews) => void>>()
  return {
    publish(sessionId, news) {
      for (const l of [...(listeners.get(sessionId) ?? [])]) {
        try {
          l(news)
        } catch {
          // one listener's failure must not stop the others
        }
      }
    },
    subscribe(sessionId, listener) {
      let set = listeners.get(sessionId)
      if (!set) listeners.set(sessionId, (set = new Set()))
      set.add(listener)
      return () => {
        set.delete(listener)
        if (set.size === 0) listeners.delete(sessionId)
      }
    },
  }
}

/** Both: local listeners hear local and remote publications; publications go to both. */
export function combineSignals(local: SessionSignals, remote: SessionSignals | undefined): SessionSignals {
  if (!remote) return local
  return {
    publish(sessionId, news) {
      local.publish(sessionId, news)
      remote.publish(sessionId, news)
    },
    subscribe(sessionId, listener) {
      const a = local.subscribe(sessionId, listener)
      const b = remote.subscribe(sessionId, listener)
      return () => {
        a()
        b()
      }
    },
    close: () => remote.close?.() ?? Promise.resolve(),
  }
}
