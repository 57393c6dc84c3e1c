/**
 * How a host learns that something changed in a session (new events, an abort, a message) without
 * waiting for its next poll. `publish` is called after the change is durable.
 */
export interface SessionSignals {
  publish(sessionId: string): void
  subscribe(sessionId: string, listener: () => void): () => void
  close?(): Promise<void>
}

/** Signals within one process: what every host uses for its own changes. */
export function localSignals(): SessionSignals {
  const listeners = new Map<string, Set<() => void>>()
  return {
    publish(sessionId) {
      for (const l of [...(listeners.get(sessionId) ?? [])]) {
        try {
          l()
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
    publish(sessionId) {
      local.publish(sessionId)
      remote.publish(sessionId)
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
