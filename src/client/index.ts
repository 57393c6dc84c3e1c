/**
 * agent-vfs/client: a client of the session API for browsers, Node and Workers, with no dependency.
 * See docs/client.md.
 */
export { createSessionClient, type SessionClient, type SessionClientOptions } from './client.js'
export { SessionApiError } from './errors.js'
export type { SessionApi, SessionRouteName, RouteAnswer, RouteInput, RouteArgs } from './api.js'
export { SESSION_API_ROUTES, type SessionApiSchemas } from './api-schemas.gen.js'
export type { SessionApiRoutes } from './api-routes.gen.js'
export type { ObserveOptions } from './observe.js'
export { eventPages } from './event-pages.js'
export type { Backoff } from './backoff.js'
export type { ObservedEvent, EventOf, LiveDelta, SessionEvent } from './events.js'
export type { Download, UploadFile, UploadOptions, UploadProgress } from './files.js'
export { SseParser, type SseMessage } from './sse.js'
export * from './state/index.js'
