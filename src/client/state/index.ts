// src/client/state: what a UI shows of a session, kept from its events by pure reducers (no I/O, no
// timers): the file tree (`files-changed`), the open approvals and questions, the executions and their
// status, the conversation (live text included), and all of them in one `SessionView`. Each reducer
// returns the same object when an event does not concern it. May import: the client's event types only.
export { applyFileEvent, fileTree, folderEntries, type FileNode, type FileTree } from './file-tree.js'
export { applyPendingEvent, type PendingApproval, type PendingItem, type PendingQuestion, type PendingState } from './pending.js'
export { applyExecutionEvent, currentExecution, type ExecutionView, type ExecutionsState } from './executions.js'
export {
  applyConversationEvent,
  type Conversation,
  type ConversationItem,
  type ModelTurn,
  type ToolTurn,
  type UserTurn,
} from './conversation.js'
export { applySessionEvent, emptySessionView, type SessionView } from './session-view.js'
