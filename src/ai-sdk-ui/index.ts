/**
 * agent-vfs/ai-sdk-ui: a session as the AI SDK's `ChatTransport`, for `useChat` (React, Vue, Svelte,
 * Angular: any AI SDK UI). It imports only agent-vfs/client at run time; `ai` is an optional peer for
 * its types. See docs/react.md.
 */
export { SessionChatTransport, type SessionChatTransportOptions } from './transport.js'
export { unsentAnswers, type UnsentAnswer } from './answers.js'
export { ChunkMapper, QUESTION_TOOL, type CarriedPart } from './chunks.js'
