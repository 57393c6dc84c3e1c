import type { ObservedEvent, SessionEvent } from '../events.js'
import { applyConversationEvent, type Conversation } from './conversation.js'
import { applyExecutionEvent, type ExecutionsState } from './executions.js'
import { applyFileEvent, fileTree, type FileTree } from './file-tree.js'
import { applyPendingEvent, type PendingState } from './pending.js'

/** Everything a UI shows of a session, kept from its events. Immutable: each part is replaced only when it changes. */
export interface SessionView {
  /** The session's status (`idle`, `running`, `waiting_input`, `waiting_approval`, `closed`) after the last `status` event. */
  status: EventOf<'status'>['status'] | 'unknown'
  /** The sequence of the last stored event applied: where a later `observe` resumes (`after`). */
  lastSeq: number
  files: FileTree
  pending: PendingState
  executions: ExecutionsState
  conversation: Conversation
}

type EventOf<T extends SessionEvent['type']> = Extract<SessionEvent, { type: T }>

/** A view with nothing in it; `files` may start from a listing (`api.listFiles`). */
export function emptySessionView(files: FileTree = fileTree()): SessionView {
  return { status: 'unknown', lastSeq: 0, files, pending: new Map(), executions: new Map(), conversation: [] }
}

/**
 * The view after `event` (a reducer: `useReducer(applySessionEvent, emptySessionView())` works as is). A
 * stored event at or before `lastSeq` was applied already and changes nothing.
 */
export function applySessionEvent(view: SessionView, event: ObservedEvent): SessionView {
  if (event.type !== 'delta' && event.seq <= view.lastSeq) return view
  const next: SessionView = {
    status: event.type === 'status' ? event.status : event.type === 'session-closed' ? 'closed' : view.status,
    lastSeq: event.type === 'delta' ? view.lastSeq : event.seq,
    files: applyFileEvent(view.files, event),
    pending: applyPendingEvent(view.pending, event),
    executions: applyExecutionEvent(view.executions, event),
    conversation: applyConversationEvent(view.conversation, event),
  }
  return next
}
