import { openVfs } from './open.js'
import type { VfsStore } from '../contract/store.js'
import type { Vfs, VfsQuota } from './types.js'

export interface VfsRegistryOptions {
  store: VfsStore
  /** Applied to every scope the registry opens. */
  quota?: VfsQuota
  autoRefresh?: boolean
}

/** Open workspaces of one store, one instance per `(namespace, scope)`. */
export interface VfsRegistry {
  /** The cached instance of the scope, opened (hydrated) on first use. */
  open(namespace: string, scope: string): Promise<Vfs>
  /** Flushes and drops the cached instance: frees memory, keeps the data. */
  evict(namespace: string, scope: string): Promise<void>
  /** Drops the cached instance and deletes the scope's data from the store. */
  deleteScope(namespace: string, scope: string): Promise<void>
  /** Scopes of a namespace that hold data in the store. */
  listScopes(namespace: string): Promise<string[]>
  /** Scopes currently held in memory. */
  cached(): Array<{ namespace: string; scope: string }>
  /** Evicts everything. */
  closeAll(): Promise<void>
}

/** Creates a registry that caches workspace instances per `(namespace, scope)`. */
export function vfsRegistry(options: VfsRegistryOptions): VfsRegistry {
  const { store } = options
  const open = new Map<string, { namespace: string; scope: string; vfs: Promise<Vfs> }>()
  const keyOf = (namespace: string, scope: string) => JSON.stringify([namespace, scope])

  const evict = async (namespace: string, scope: string) => {
    const key = keyOf(namespace, scope)
    const entry = open.get(key)
    if (!entry) return
    open.delete(key)
    const vfs = await entry.vfs.catch(() => undefined)
    await vfs?.close()
  }

  return {
    open(namespace, scope) {
      const key = keyOf(namespace, scope)
      let entry = open.get(key)
      if (!entry) {
        const vfs = openVfs({ store, namespace, scope, quota: options.quota, autoRefresh: options.autoRefresh })
        // A failed open is not cached: the next call tries again.
        vfs.catch(() => open.get(key)?.vfs === vfs && open.delete(key))
        open.set(key, (entry = { namespace, scope, vfs }))
      }
      return entry.vfs
    },
    evict,
    async deleteScope(namespace, scope) {
      await evict(namespace, scope).catch(() => undefined)
      await store.deleteScope(namespace, scope)
    },
    listScopes: (namespace) => store.listScopes(namespace),
    cached: () => [...open.values()].map(({ namespace, scope }) => ({ namespace, scope })),
    async closeAll() {
      await Promise.all(this.cached().map(({ namespace, scope }) => evict(namespace, scope)))
    },
  }
}
