import { useCallback, useMemo, useSyncExternalStore } from 'react'
import type { FileTree, ObservedEvent, PendingItem, SessionApiError, SessionClient, SessionView } from 'agent-vfs/client'
import { SERVER_SNAPSHOT, sessionStore, type SessionSnapshot, type SessionStoreOptions } from './session-store.js'

/** Options of the session hooks. Hooks of one session with the same options share one stream. */
export interface SessionHookOptions extends SessionStoreOptions {
  /**
   * Suspend (throw to the nearest `<Suspense>`) until the session's log up to now is loaded, and throw
   * a stream's fatal error to the nearest error boundary. Only on the client: a server render and the
   * hydration render show the empty view, which the client then fills.
   */
  suspense?: boolean
}

/** What {@link useSession} returns: the session's view kept from its events. */
export interface SessionState extends SessionView {
  /** True once the log up to the first subscription is applied. */
  ready: boolean
  /** What stopped the stream for good (401, 404, a broken server); every other failure is retried. */
  error?: SessionApiError
}

/** The session's snapshot, subscribed to its shared store (SSR-safe: the server sees {@link SERVER_SNAPSHOT}). */
function useSnapshot(client: SessionClient, sessionId: string, options: SessionHookOptions = {}): SessionSnapshot {
  const { live, maxEvents, suspense } = options
  const store = useMemo(
    () => sessionStore(client, sessionId, { ...(live !== undefined ? { live } : {}), ...(maxEvents ? { maxEvents } : {}) }),
    [client, sessionId, live, maxEvents],
  )
  const snapshot = useSyncExternalStore(store.subscribe, store.getSnapshot, () => SERVER_SNAPSHOT)
  // The server's (and hydration's) snapshot never suspends: no request is made during a server render.
  if (suspense && snapshot !== SERVER_SNAPSHOT) {
    if (!snapshot.ready) throw store.ready()
    if (snapshot.error) throw snapshot.error
  }
  return snapshot
}

/**
 * A session's state (status, files, open approvals and questions, executions, conversation), live:
 * replayed from its log, then kept from its events; the stream reconnects by itself.
 */
export function useSession(client: SessionClient, sessionId: string, options?: SessionHookOptions): SessionState {
  const { view, ready, error } = useSnapshot(client, sessionId, options)
  return useMemo(() => ({ ...view, ready, ...(error ? { error } : {}) }), [view, ready, error])
}

/** The session's latest events, oldest first (at most `maxEvents`, default 500). */
export function useEvents(client: SessionClient, sessionId: string, options?: SessionHookOptions): readonly ObservedEvent[] {
  return useSnapshot(client, sessionId, options).events
}

/** The session's files by path, kept live from `files-changed` (`folderEntries(tree, dir)` lists one folder). */
export function useFiles(client: SessionClient, sessionId: string, options?: SessionHookOptions): FileTree {
  return useSnapshot(client, sessionId, options).view.files
}

/** What {@link usePending} returns: the open approvals and questions, and how to answer them. */
export interface PendingControls {
  items: readonly PendingItem[]
  /** Decides an approval: `approve`, `always` (approve this tool from now on) or `deny`. */
  decide(pendingId: string, decision: 'approve' | 'always' | 'deny', message?: string): Promise<void>
  /** Answers a question. */
  answer(pendingId: string, answer: string): Promise<void>
}

/** The session's open approvals and questions, oldest first, with `decide` and `answer`. */
export function usePending(client: SessionClient, sessionId: string, options?: SessionHookOptions): PendingControls {
  const pending = useSnapshot(client, sessionId, options).view.pending
  const decide = useCallback(
    async (pendingId: string, decision: 'approve' | 'always' | 'deny', message?: string) => {
      await client.api.answerPending({ params: { id: sessionId, pendingId }, body: { decision, ...(message ? { message } : {}) } })
    },
    [client, sessionId],
  )
  const answer = useCallback(
    async (pendingId: string, text: string) => {
      await client.api.answerPending({ params: { id: sessionId, pendingId }, body: { answer: text } })
    },
    [client, sessionId],
  )
  return useMemo(() => ({ items: [...pending.values()], decide, answer }), [pending, decide, answer])
}
