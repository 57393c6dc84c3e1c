import { DurableObject } from 'cloudflare:workers'
import { Hono } from 'hono'
import { durableObjectStore, openVfs, type Vfs } from 'agent-vfs'
import type { Env } from './env.js'
import { fileRoutes } from './file-routes.js'

/**
 * One workspace per Durable Object, stored in the object's own SQLite database. The object is the
 * only writer of that database, so the open workspace is kept for the object's lifetime: reads come
 * from memory and there is nothing to refresh.
 */
export class WorkspaceObject extends DurableObject<Env> {
  /** The workspace inside this object's storage; every object holds exactly one. */
  static readonly namespace = 'workspace'
  static readonly scope = 'main'

  #vfs: Promise<Vfs> | undefined
  readonly #routes = new Hono().route(
    '/ws/:name',
    fileRoutes(() => this.workspace()),
  )

  /** The memoised workspace; a failed open is forgotten so the next request retries. */
  workspace(): Promise<Vfs> {
    this.#vfs ??= openVfs({
      store: durableObjectStore(this.ctx.storage),
      namespace: WorkspaceObject.namespace,
      scope: WorkspaceObject.scope,
      autoRefresh: false,
    }).catch(error => {
      this.#vfs = undefined
      throw error
    })
    return this.#vfs
  }

  override fetch(request: Request): Promise<Response> {
    return Promise.resolve(this.#routes.fetch(request))
  }
}
