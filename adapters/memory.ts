import {
  checkExpectedVersions,
  checkSubtrees,
  subtreeRange,
  type ScopeSnapshot,
  type StoredEntry,
  type StoreOp,
  type VfsStore,
} from '../src/contract/store.js'
import {
  changeMatches,
  changeRowBytes,
  neededBlobs,
  recordHeldDirectories,
  storedChanges,
  type StoredChange,
  type StoreHistory,
} from '../src/contract/history.js'

interface MemoryScope {
  version: number
  /** Set by deleteScope: the version stays, so versions never repeat, but the scope is not listed. */
  deleted: boolean
  entries: Map<string, StoredEntry>
  /** History: every change in commit order, and the before-images by hash. */
  changes: StoredChange[]
  blobs: Map<string, Uint8Array>
}

/**
 * A store that keeps scopes in this process's memory. Data lives as long as the store object:
 * share one store between `openVfs` calls to simulate reopening. Useful for tests, demos and as
 * the baseline every other adapter is compared with.
 */
export function memoryStore(): VfsStore {
  const scopes = new Map<string, MemoryScope>()
  const keyOf = (namespace: string, scope: string) => JSON.stringify([namespace, scope])
  const history = memoryHistory(scope => scopes.get(scope), keyOf)

  return {
    kind: 'memory',
    history,
    async load(namespace, scope): Promise<ScopeSnapshot> {
      const s = scopes.get(keyOf(namespace, scope))
      if (!s) return { version: 0, entries: [] }
      return { version: s.version, entries: [...s.entries.values()].map(e => ({ ...e, data: e.data.slice() })) }
    },
    async commit(namespace, scope, ops: StoreOp[], record) {
      const key = keyOf(namespace, scope)
      const s: MemoryScope = scopes.get(key) ?? { version: 0, deleted: false, entries: new Map(), changes: [], blobs: new Map() }
      checkExpectedVersions(ops, path => s.entries.get(path))
      checkSubtrees(ops, path => {
        const { prefix } = subtreeRange(path)
        let n = 0
        for (const p of s.entries.keys()) if (p.startsWith(prefix)) n++
        return n
      })
      recordHeldDirectories(record, path => s.entries.get(path))
      // Read every op before changing anything, so an exception half-way (a bad op) leaves the
      // scope untouched; the cost is the batch's, not the scope's.
      const version = s.version + 1
      const staged = ops.flatMap((op): Array<[string, StoredEntry | null]> =>
        op.op === 'check'
          ? []
          : op.op === 'delete'
            ? [[op.path, null]]
            : [[op.path, { path: op.path, kind: op.kind, data: op.data.slice(), version, mtime: op.mtime, ctime: op.ctime }]],
      )
      for (const [path, entry] of staged) {
        if (entry) s.entries.set(path, entry)
        else s.entries.delete(path)
      }
      if (record) {
        s.changes.push(...storedChanges(record, version))
        for (const b of record.blobs) if (!s.blobs.has(b.hash)) s.blobs.set(b.hash, b.data.slice())
      }
      s.version = version
      s.deleted = false
      scopes.set(key, s)
      return version
    },
    async deleteScope(namespace, scope) {
      const s = scopes.get(keyOf(namespace, scope))
      if (!s) return
      s.entries.clear()
      s.changes = []
      s.blobs.clear()
      s.deleted = true
    },
    async listScopes(namespace) {
      const out: string[] = []
      for (const [key, s] of scopes) {
        const [ns, scope] = JSON.parse(key) as [string, string]
        if (ns === namespace && !s.deleted) out.push(scope)
      }
      return out.sort()
    },
  }
}

/** History kept beside each scope (see MemoryScope). */
function memoryHistory(
  scopeAt: (key: string) => MemoryScope | undefined,
  keyOf: (namespace: string, scope: string) => string,
): StoreHistory {
  return {
    async changes(namespace, scope, query = {}) {
      const out: StoredChange[] = []
      for (const c of scopeAt(keyOf(namespace, scope))?.changes ?? []) {
        if (query.limit !== undefined && out.length >= query.limit) break
        if (changeMatches(c, query)) out.push({ ...c })
      }
      return out
    },
    async blobs(namespace, scope, hashes) {
      const held = scopeAt(keyOf(namespace, scope))?.blobs
      const out = new Map<string, Uint8Array>()
      for (const h of hashes) {
        const data = held?.get(h)
        if (data) out.set(h, data.slice())
      }
      return out
    },
    async oldest(namespace, scope) {
      return scopeAt(keyOf(namespace, scope))?.changes[0]?.version
    },
    async prune(namespace, scope, upTo) {
      const s = scopeAt(keyOf(namespace, scope))
      if (!s) return { changes: 0, blobs: 0 }
      const kept = s.changes.filter(c => c.version > upTo)
      const removed = s.changes.length - kept.length
      s.changes = kept
      const needed = neededBlobs(kept)
      let blobs = 0
      for (const h of [...s.blobs.keys()]) if (!needed.has(h) && s.blobs.delete(h)) blobs++
      return { changes: removed, blobs }
    },
    async usage(namespace, scope) {
      const s = scopeAt(keyOf(namespace, scope))
      let bytes = 0
      for (const c of s?.changes ?? []) bytes += changeRowBytes(c)
      for (const data of s?.blobs.values() ?? []) bytes += data.length + 64
      return { changes: s?.changes.length ?? 0, blobs: s?.blobs.size ?? 0, bytes }
    },
  }
}
