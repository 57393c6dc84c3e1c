import { VfsError } from '../contract/errors.js'
import type { ScopeSnapshot, VfsStore } from '../contract/store.js'
import { restrict } from './restrict.js'
import type { Vfs } from './types.js'
import { StoreVfs } from './vfs.js'

/**
 * A read-only workspace over a fixed snapshot (the past, rebuilt from history): a store workspace
 * over a store that only answers the snapshot, behind a read-only view.
 */
export async function frozenVfs(namespace: string, scope: string, snapshot: ScopeSnapshot, kind: string): Promise<Vfs> {
  const store: VfsStore = {
    kind: `${kind} (version ${snapshot.version})`,
    load: async () => snapshot,
    commit: async () => {
      throw new VfsError('EACCES', undefined, `this is the workspace as it was at version ${snapshot.version}; it cannot change`)
    },
    deleteScope: async () => undefined,
    listScopes: async () => [scope],
  }
  const vfs = new StoreVfs(store, namespace, scope)
  await vfs.hydrate(false)
  return restrict(vfs, { readOnly: true })
}
