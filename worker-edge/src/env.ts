import type { WorkspaceObject } from './workspace-object.js'

/** The bindings wrangler.toml declares for this Worker. */
export interface Env {
  /** One SQLite-backed Durable Object per workspace; its storage is the workspace's store. */
  WORKSPACE: DurableObjectNamespace<WorkspaceObject>
  /** D1: workspaces any Worker instance can open (see the /d1 routes), and later session indexes. */
  DB: D1Database
}
