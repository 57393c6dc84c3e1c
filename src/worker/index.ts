/**
 * agent-vfs/worker: agent sessions on Cloudflare Workers, one SQLite-backed Durable Object per
 * session, a D1 index of owners' sessions, the same HTTP API and auth as the Node host.
 *
 * ```ts
 * // index.ts of your Worker (wrangler.toml: SESSIONS → SessionObject, DB → D1, secret AGENT_VFS_JWT_SECRET)
 * import { createEdgeApp } from 'agent-vfs/worker'
 * export { SessionObject } from 'agent-vfs/worker'
 * export default createEdgeApp({ agents: { helper: myProfile } })
 * ```
 */
export { SessionObject, type CreateSessionResult } from './session-object.js'
export { createEdgeApp, type EdgeAppEnv } from './edge-app.js'
export { d1OwnerIndex, sessionOwner } from './d1-owner-index.js'
export { D1_SESSION_SCHEMA, migrateD1, type D1Migratable } from './d1-schema.js'
export type { EdgeEnv, EdgeOptions } from './options.js'
