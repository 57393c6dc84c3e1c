import {
  checkExpectedVersions,
  checkSubtrees,
  subtreeRange,
  type ScopeSnapshot,
  type StoredEntry,
  type StoreOp,
  type VfsStore,
} from '../src/contract/store.js'

interface MemoryScope {
  version: number
  /** Set by deleteScope: the version stays, so versions never repeat, but the scope is not listed. */
  deleted: boolean
  entries: Map<string, StoredEntry>
}

/**
 * A store that keeps scopes in this process's memory. Data lives as long as the store object:
 * share one store between `openVfs` calls to simulate reopening. Useful for tests, demos and as
 * the baseline every other adapter is compared with.
 */
export function memoryStore(): VfsStore {
  const scopes = new Map<string, MemoryScope>()
  const keyOf = (namespace: string, scope: string) => JSON.stringify([namespace, scope])

  return {
    kind: 'memory',
    async load(namespace, scope): Promise<ScopeSnapshot> {
      const s = scopes.get(keyOf(namespace, scope))
      if (!s) return { version: 0, entries: [] }
      return { version: s.version, entries: [...s.entries.values()].map(e => ({ ...e, data: e.data.slice() })) }
    },
    async commit(namespace, scope, ops: StoreOp[]) {
      const key = keyOf(namespace, scope)
      const s = scopes.get(key) ?? { version: 0, deleted: false, entries: new Map<string, StoredEntry>() }
      checkExpectedVersions(ops, path => s.entries.get(path))
      checkSubtrees(ops, path => {
        const { prefix } = subtreeRange(path)
        let n = 0
        for (const p of s.entries.keys()) if (p.startsWith(prefix)) n++
        return n
      })
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
      s.version = version
      s.deleted = false
      scopes.set(key, s)
      return version
    },
    async deleteScope(namespace, scope) {
      const s = scopes.get(keyOf(namespace, scope))
      if (!s) return
      s.entries.clear()
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
