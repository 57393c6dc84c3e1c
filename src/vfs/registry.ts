import { isVfsError, VfsError } from '../contract/errors.js'
import { openVfs } from './open.js'
import { ScopeHandle, type ScopeSlot } from './registry-handle.js'
import type { VfsStore } from '../contract/store.js'
import type { Vfs, VfsChange, VfsQuota } from './types.js'

export interface VfsRegistryOptions {
  store: VfsStore
  /** Applied to every scope the registry opens. */
  quota?: VfsQuota
  autoRefresh?: boolean
  /**
   * Most workspaces kept in memory (default 100; `Infinity` for no bound). Opening one more evicts
   * the least recently used one that has no call in progress: its writes are flushed, then it is
   * released. Handles to it keep working: their next call opens it again.
   */
  maxCached?: number
}

/** Open workspaces of one store, one instance per `(namespace, scope)`, at most `maxCached` in memory. */
export interface VfsRegistry {
  /**
   * A handle to the scope's workspace, opened (hydrated) on first use. Every call through it reaches
   * the scope's one instance in this registry, opening it again if it was evicted meanwhile. Each
   * call gives a new handle; `close()` on it ends that handle only.
   */
  open(namespace: string, scope: string): Promise<Vfs>
  /** Flushes and drops the cached instance: frees memory, keeps the data. Handles reopen it on their next call. */
  evict(namespace: string, scope: string): Promise<void>
  /** Drops the cached instance and deletes the scope's data from the store. */
  deleteScope(namespace: string, scope: string): Promise<void>
  /** Scopes of a namespace that hold data in the store. */
  listScopes(namespace: string): Promise<string[]>
  /** Scopes currently held in memory, least recently used first. */
  cached(): Array<{ namespace: string; scope: string }>
  /** Evicts everything. */
  closeAll(): Promise<void>
}

/** One scope in memory. */
interface Entry {
  namespace: string
  scope: string
  vfs: Promise<Vfs>
  /** The instance once it opened. */
  ready?: Vfs
  /** Calls in progress: a busy scope is never chosen for eviction. */
  busy: number
}

const DEFAULT_MAX_CACHED = 100

/** Creates a registry that caches workspace instances per `(namespace, scope)`, least recently used out first. */
export function vfsRegistry(options: VfsRegistryOptions): VfsRegistry {
  const { store } = options
  const maxCached = options.maxCached ?? DEFAULT_MAX_CACHED
  if (!(maxCached >= 1))
    throw new VfsError('EINVAL', undefined, `maxCached must be at least 1 (or Infinity), got ${String(options.maxCached)}`)
  // Map order is recency: a use moves the entry to the end.
  const entries = new Map<string, Entry>()
  /** Evictions still flushing, so that reopening a scope loads what they wrote. */
  const leaving = new Map<string, Promise<void>>()
  /** Change listeners per scope; they outlive evictions. */
  const listeners = new Map<string, Set<(change: VfsChange) => void>>()
  const keyOf = (namespace: string, scope: string) => JSON.stringify([namespace, scope])

  /** The scope's entry, opening it if needed; marks it most recently used. */
  const entryFor = (namespace: string, scope: string): Entry => {
    const key = keyOf(namespace, scope)
    let entry = entries.get(key)
    if (entry) {
      entries.delete(key)
      entries.set(key, entry)
      return entry
    }
    const before = leaving.get(key) ?? Promise.resolve()
    const vfs = before.then(() => openVfs({ store, namespace, scope, quota: options.quota, autoRefresh: options.autoRefresh }))
    const created: Entry = { namespace, scope, vfs, busy: 0 }
    entry = created
    vfs.then(
      v => {
        created.ready = v
        v.onChange(change => {
          for (const listener of listeners.get(key) ?? []) listener(change)
        })
      },
      // A failed open is not cached: the next call tries again.
      () => entries.get(key) === created && entries.delete(key),
    )
    entries.set(key, entry)
    return entry
  }

  /** Evicts least recently used idle entries until the bound holds (busy ones are skipped, not waited for). */
  const shrink = () => {
    if (entries.size <= maxCached) return
    for (const [key, entry] of entries) {
      if (entries.size <= maxCached) break
      if (entry.busy > 0 || !entry.ready) continue
      void drop(key, entry)
    }
  }

  /** Removes an entry at once and closes its instance (which waits for its pending writes). */
  const drop = (key: string, entry: Entry): Promise<void> => {
    entries.delete(key)
    const done = entry.vfs
      .then(
        v => v.close(),
        () => undefined,
      )
      .catch(() => undefined) // the writers of a failed batch got the error already
      .finally(() => leaving.get(key) === done && leaving.delete(key))
    leaving.set(key, done)
    return done
  }

  const slotFor = (namespace: string, scope: string): ScopeSlot => {
    const key = keyOf(namespace, scope)
    return {
      async use(fn) {
        for (let attempt = 0; ; attempt++) {
          const entry = entryFor(namespace, scope)
          entry.busy++
          try {
            return await fn(await entry.vfs)
          } catch (error) {
            // evict() closed the instance under this call before it reached it (ECLOSED comes before
            // any change): run it again on the scope's next instance.
            if (attempt < 2 && isVfsError(error, 'ECLOSED') && entries.get(key) !== entry) continue
            throw error
          } finally {
            entry.busy--
            if (entry.busy === 0) shrink()
          }
        }
      },
      resident: () => entries.get(key)?.ready,
      readable() {
        const entry = entries.get(key)
        if (!entry?.ready) return undefined
        entries.delete(key)
        entries.set(key, entry)
        return entry.ready
      },
      async settled() {
        await leaving.get(key)
      },
      subscribe(listener) {
        let set = listeners.get(key)
        if (!set) listeners.set(key, (set = new Set()))
        set.add(listener)
        return () => {
          set.delete(listener)
          if (set.size === 0 && listeners.get(key) === set) listeners.delete(key)
        }
      },
    }
  }

  const evict = async (namespace: string, scope: string) => {
    const key = keyOf(namespace, scope)
    const entry = entries.get(key)
    if (entry) await drop(key, entry)
    else await leaving.get(key)
  }

  return {
    async open(namespace, scope) {
      // Each caller gets its own handle (closing it ends only that one); all reach one instance.
      const slot = slotFor(namespace, scope)
      return slot.use(async v => new ScopeHandle(slot, v))
    },
    evict,
    async deleteScope(namespace, scope) {
      await evict(namespace, scope).catch(() => undefined)
      await store.deleteScope(namespace, scope)
    },
    listScopes: namespace => store.listScopes(namespace),
    cached: () => [...entries.values()].map(({ namespace, scope }) => ({ namespace, scope })),
    async closeAll() {
      await Promise.all(this.cached().map(({ namespace, scope }) => evict(namespace, scope)))
    },
  }
}
