/**
 * agent-vfs/react: React hooks over agent-vfs/client (React is an optional peer). See docs/react.md.
 */
export { useSession, useEvents, useFiles, usePending, type SessionHookOptions, type SessionState, type PendingControls } from './hooks.js'
export { useSend, type SendControls } from './use-send.js'
export { sessionStore, SessionStore, SERVER_SNAPSHOT, type SessionSnapshot, type SessionStoreOptions } from './session-store.js'
