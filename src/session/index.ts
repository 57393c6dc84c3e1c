/**
 * agent-vfs/session: durable, resumable, observable agent sessions over any workspace store, and
 * their HTTP API (a hono app). Isomorphic: the same host runs in Node, a browser and workerd.
 *
 * ```ts
 * const host = createSessionHost({ store, agents: { appendix: profile } })
 * const s = await host.create({ owner: 'ana', profile: 'appendix', title: 'Season 1' })
 * await host.send(s.id, { text: 'Write the appendix' })
 * for await (const e of host.observe(s.id, { after: 0 })) console.log(e.type)
 * ```
 */
export {
  createSessionHost,
  uploadPath,
  type SessionHost,
  type SessionHostOptions,
  type UploadFile,
  type GcOptions,
  type GcReport,
} from './host.js'
export { SessionError, isSessionErrorCode, type SessionErrorCode } from './errors.js'
export { localSignals, combineSignals, type SessionNews, type SessionSignals } from './records/signals.js'
export { postgresSignals, type ListeningClient } from './records/postgres-signals.js'
export type { ObserveOptions } from './records/observe.js'
export type { LiveDelta, LiveListener, LiveSubscription } from './records/live-text.js'
export { LiveCursor } from './records/observe-live.js'
export type { TailEvent, TailListener } from './records/log-tail.js'
export { SEGMENT_EVENTS, SESSION_ID, newSessionId, storedSessionIds } from './storage.js'
export { storeOwnerIndex, DEFAULT_OWNER_QUOTA, type OwnerIndex } from './records/owner-index.js'
export { DEFAULT_HISTORY_RETENTION, type HistoryRetentionOptions, type HistoryRetentionReport } from './host/history-retention.js'
export type {
  SessionStatus,
  SessionRecord,
  SessionMessage,
  SentMessage,
  MessageMode,
  SessionEvent,
  SessionEventBody,
  SessionActor,
  ChangedFile,
  EventLine,
  Heartbeat,
  AgentProfile,
  ExecutionSetup,
  OwnerQuota,
  Page,
} from './types.js'
export type { SessionChanges, SessionHistoryQuery, SessionDiffOptions } from './host/changes.js'
export type { ChangePoint } from './run/change-points.js'
export type { ForkPoint } from './fork/fork.js'
export type { OpenedSession, SessionRef } from './session-ref.js'
export type { ProposalOutcome, ProposalReview, SessionPending } from './run/proposals.js'
export type { ForkOffer, ForkPage, ForkSource, RemoteForks } from './fork/fork-remote.js'
export { createSessionApp, type SessionAppOptions } from './http/app.js'
export { sessionRoutes, type SessionRouteName } from './http/routes.js'
export { usageRoutes, addUsageRoutes } from './http/usage-routes.js'
export { traceRequests } from './http/request-spans.js'
export {
  sumUsage,
  zeroUsage,
  storedBytes,
  type UsageTotals,
  type ExecutionUsage,
  type SessionUsage,
  type OwnerUsage,
  type HostBudgets,
} from './records/usage.js'
export {
  bodyLimits,
  resolveBodyLimits,
  DEFAULT_MAX_JSON_BYTES,
  DEFAULT_MAX_UPLOAD_BYTES,
  DEFAULT_DRAIN_BYTES,
  type BodyLimits,
} from './http/limits.js'
export { sessionOpenApiDocument } from './http/openapi.js'
export { mintToken, bearerAuth, type SessionAuth } from './http/auth.js'
export { describeError, errorResponse, toErrorResponse } from './http/errors.js'
