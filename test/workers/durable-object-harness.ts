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
    commit: (ns, scope, ops) => inside(s => s.commit(ns, scope, ops)),
    deleteScope: (ns, scope) => inside(s => s.deleteScope(ns, scope)),
    listScopes: ns => inside(s => s.listScopes(ns)),
  }
}
