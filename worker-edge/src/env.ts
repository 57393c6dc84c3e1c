import type { EdgeEnv } from 'agent-vfs/worker'
import type { WorkspaceObject } from './workspace-object.js'

/** The bindings wrangler.toml declares for this Worker: the sessions' (SESSIONS, DB, AGENT_VFS_JWT_SECRET) and the file routes'. */
export interface Env extends EdgeEnv {
  /** One SQLite-backed Durable Object per workspace; its storage is the workspace's store. */
  WORKSPACE: DurableObjectNamespace<WorkspaceObject>
  /** D1: workspaces any Worker instance can open (see the /d1 routes), and the session index. */
  DB: D1Database
  /** Milliseconds every model call of the appendix profiles waits, to watch a run live (as `npm run serve`'s). Default 0. */
  MODEL_DELAY_MS?: string
}
