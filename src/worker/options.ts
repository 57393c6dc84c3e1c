import type { Hono } from 'hono'
import type { AgentProfile, HostBudgets, OwnerQuota, SessionHost } from 'agent-vfs/session'
import type { SessionObject } from './session-object.js'

/** The bindings `agent-vfs/worker` reads (declare them in wrangler.toml; see the README). */
export interface EdgeEnv {
  /** The `SessionObject` class: one SQLite-backed Durable Object per session. */
  SESSIONS: DurableObjectNamespace<SessionObject>
  /** D1 with the `sessions` table (dist/migrations of the package, or `migrateD1`): the owners' index. */
  DB: D1Database
  /** The HS256 secret of the bearer JWTs (32+ characters): `wrangler secret put AGENT_VFS_JWT_SECRET`, or `.dev.vars` for `wrangler dev`. */
  AGENT_VFS_JWT_SECRET?: string
  /**
   * Browser origins that may call `/sessions/{id}/mcp`, comma-separated (`https://app.example.com`,
   * or `*`), added to `sessionMcp({ allowedOrigins })`. Unset: a request with an `Origin` header is refused (403).
   */
  AGENT_VFS_MCP_ORIGINS?: string
}

/** Options of {@link createEdgeApp}: the Worker and every `SessionObject` of the same script use them. */
export interface EdgeOptions {
  /** The agent profiles sessions may use, by name. In workerd, run_js needs `engine: workerdEngine()` from `agent-vfs/run-js/workerd`. */
  agents: Record<string, AgentProfile>
  /**
   * Limits per owner, enforced atomically in D1. Default `DEFAULT_OWNER_QUOTA` (100 sessions, 1 GiB,
   * 4 running executions, 50 open streams); a quota given replaces it whole (`{}`: no limits).
   */
  quota?: OwnerQuota
  /** Budgets of every execution and of every owner (docs/usage-budgets.md). Default: none. */
  budgets?: HostBudgets
  /** Closed sessions are deleted (their object's storage and their D1 row) this long after they closed, by the object's alarm. Default: kept. */
  retention?: { closedMs: number }
  /**
   * While an execution runs the object keeps an alarm set, so a run an eviction stopped continues
   * from its last checkpoint. Each alarm waits for the run up to `budgetMs` (default 20 s), then
   * sets the next one `tickMs` later (default 1 s); a request that may start work sets one too.
   */
  alarm?: { tickMs?: number; budgetMs?: number }
  /** How long a lease lasts without renewal. Default 30 s (an object takes over its own stale lease at once). */
  leaseMs?: number
  /** How often an SSE observer looks at the log without a signal. Default 1 s. */
  pollMs?: number
  /** SSE heartbeat interval. Default 15 s. */
  heartbeatMs?: number
  /** An SSE stream ends after this long without events (clients reconnect with Last-Event-ID). Default 5 min. */
  idleTimeoutMs?: number
  /** Largest upload body (`PUT …/file`, `POST …/files`) in bytes. Default 20 MiB. */
  maxUploadBytes?: number
  /** Largest body of every other route in bytes. Default 1 MiB. */
  maxJsonBytes?: number
  /** Content bytes of one page a fork copies from its original's object (one file larger than this goes alone). Default 1 MiB. */
  forkPageBytes?: number
  /** Bytes of an oversized body read and discarded before the 413 (so the client reads it). Default 256 MiB. */
  drainBytes?: number
  /**
   * Serves `/sessions/{id}/mcp`, every session's workspace as an MCP server (docs/mcp.md):
   * `sessionMcp({ runJs })` from `agent-vfs/mcp`. Default: none, and nothing of the MCP SDK in the Worker.
   */
  mcp?: (app: Hono<{ Variables: { owner: string } }>, host: SessionHost, settings: { allowedOrigins: string[]; pollMs?: number }) => void
}

let configured: EdgeOptions | undefined

/** Makes `options` the configuration of this script's Worker and objects (the last call wins). */
export function configureEdge(options: EdgeOptions): void {
  if (!options?.agents || Object.keys(options.agents).length === 0)
    throw new TypeError('createEdgeApp needs { agents }: at least one agent profile by name')
  configured = options
}

/** The script's configuration; a `SessionObject` in a script that never called `createEdgeApp` fails with what to do. */
export function edgeOptions(): EdgeOptions {
  if (!configured)
    throw new Error(
      'agent-vfs/worker: call createEdgeApp({ agents }) at the top level of the Worker script that exports SessionObject (its options configure the objects too)',
    )
  return configured
}

/** The JWT secret from the Worker's secret binding, or an error that says how to set it. */
export function jwtSecret(env: EdgeEnv): string {
  const secret = env.AGENT_VFS_JWT_SECRET
  if (typeof secret !== 'string' || secret.length < 32) {
    throw new Error(
      'AGENT_VFS_JWT_SECRET is not set (or shorter than 32 characters): `wrangler secret put AGENT_VFS_JWT_SECRET` to deploy, or AGENT_VFS_JWT_SECRET=… in .dev.vars for wrangler dev',
    )
  }
  return secret
}

/** The origins of `AGENT_VFS_MCP_ORIGINS` (comma-separated; the MCP mount checks each one). */
export function mcpOrigins(env: EdgeEnv): string[] {
  return (env.AGENT_VFS_MCP_ORIGINS ?? '')
    .split(',')
    .map(s => s.trim())
    .filter(s => s !== '')
}
