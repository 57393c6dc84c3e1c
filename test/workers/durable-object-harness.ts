import { runInDurableObject } from 'cloudflare:test'
import { env } from 'cloudflare:workers'
import { durableObjectStore, type VfsStore } from '../../src/index.js'

/**
 * A store whose every call runs inside a real Durable Object (the Worker's WorkspaceObject named
 * `name`) on that object's own SQLite storage. runInDurableObject executes the callback in the
 * object's context, in this same isolate: ops and bytes are passed by reference, not serialised,
 * so the shared suites (including their poisoned ops) see exactly what an adapter sees in
 * production, while the test code itself stays outside the object.
 */
export function storeInsideDurableObject(name: string): VfsStore {
  const stub = env.WORKSPACE.getByName(name)
  const inside = <T>(call: (store: VfsStore) => Promise<T>): Promise<T> =>
    runInDurableObject(stub, (_instance, state) => call(durableObjectStore(state.storage)))
  return {
    kind: 'durable-object',
    load: (ns, scope) => inside(s => s.load(ns, scope)),
    commit: (ns, scope, ops, record) => inside(s => s.commit(ns, scope, ops, record)),
    history: {
      changes: (ns, scope, query) => inside(s => s.history!.changes(ns, scope, query)),
      blobs: (ns, scope, hashes) => inside(s => s.history!.blobs(ns, scope, hashes)),
      oldest: (ns, scope) => inside(s => s.history!.oldest(ns, scope)),
      prune: (ns, scope, upTo) => inside(s => s.history!.prune(ns, scope, upTo)),
      usage: (ns, scope) => inside(s => s.history!.usage(ns, scope)),
    },
    deleteScope: (ns, scope) => inside(s => s.deleteScope(ns, scope)),
    listScopes: ns => inside(s => s.listScopes(ns)),
  }
}
