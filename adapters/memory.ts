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
  type ChangeRecord,
  type StoredChange,
  type StoreHistory,
} from '../src/contract/history.js'

/** One commit's changes as the workspace recorded them, stamped when history is read (see MemoryScope). */
interface MemoryCommit {
  version: number
  time: number
  changes: readonly ChangeRecord[]
}

interface MemoryScope {
  version: number
  /** Set by deleteScope: the version stays, so versions never repeat, but the scope is not listed. */
  deleted: boolean
  entries: Map<string, StoredEntry>
  /**
   * History: each commit's record as handed over (a commit appends one object, whatever its size;
   * reading history copies the changes out with their version and time), and the before-images by hash.
   */
  commits: MemoryCommit[]
  blobs: Map<string, Uint8Array>
}

/** Options of {@link memoryStore}. */
export interface MemoryStoreOptions {
  /**
   * Whether the store keeps history (default `true`): the change records and before-images that
   * diff, `readAt`, revert, gc and branches at a past version read. `false` gives a store without
   * the `history` capability, for tests and ephemeral agents that never look back: writes then
   * hash nothing and keep no before-images (what they replace is freed at once), `history()`
   * answers `[]` and reading the past fails with EINVAL saying the store keeps no history.
   */
  history?: boolean
}

/**
 * A store that keeps scopes in this process's memory. Data lives as long as the store object:
 * share one store between `openVfs` calls to simulate reopening. Useful for tests, demos and as
 * the baseline every other adapter is compared with. History costs a commit one appended object
 * plus the before-images it replaced; `{ history: false }` keeps none.
 */
export function memoryStore(options: MemoryStoreOptions = {}): VfsStore {
  const scopes = new Map<string, MemoryScope>()
  const keyOf = (namespace: string, scope: string) => JSON.stringify([namespace, scope])
  const keepHistory = options?.history !== false
  const history = keepHistory ? memoryHistory(scope => scopes.get(scope), keyOf) : undefined

  return {
    kind: 'memory',
    ...(history ? { history } : {}),
    async load(namespace, scope): Promise<ScopeSnapshot> {
      const s = scopes.get(keyOf(namespace, scope))
      if (!s) return { version: 0, entries: [] }
      return { version: s.version, entries: [...s.entries.values()].map(e => ({ ...e, data: e.data.slice() })) }
    },
    async commit(namespace, scope, ops: StoreOp[], record) {
      const key = keyOf(namespace, scope)
      const s: MemoryScope = scopes.get(key) ?? { version: 0, deleted: false, entries: new Map(), commits: [], blobs: new Map() }
      checkExpectedVersions(ops, path => s.entries.get(path))
      checkSubtrees(ops, path => {
        const { prefix } = subtreeRange(path)
        let n = 0
        for (const p of s.entries.keys()) if (p.startsWith(prefix)) n++
        return n
      })
      if (keepHistory) recordHeldDirectories(record, path => s.entries.get(path))
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
      if (record && keepHistory && record.changes.length > 0) {
        s.commits.push({ version, time: record.time, changes: record.changes })
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
      s.commits = []
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
      for (const commit of scopeAt(keyOf(namespace, scope))?.commits ?? []) {
        if ((query.after !== undefined && commit.version <= query.after) || (query.upTo !== undefined && commit.version > query.upTo))
          continue
        for (const c of commit.changes) {
          if (query.limit !== undefined && out.length >= query.limit) return out
          const change: StoredChange = { ...c, version: commit.version, time: commit.time }
          if (changeMatches(change, query)) out.push(change)
        }
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
      return scopeAt(keyOf(namespace, scope))?.commits[0]?.version
    },
    async prune(namespace, scope, upTo) {
      const s = scopeAt(keyOf(namespace, scope))
      if (!s) return { changes: 0, blobs: 0 }
      const kept = s.commits.filter(c => c.version > upTo)
      let removed = 0
      for (const c of s.commits) if (c.version <= upTo) removed += c.changes.length
      s.commits = kept
      const needed = neededBlobs(kept.flatMap(c => c.changes))
      let blobs = 0
      for (const h of [...s.blobs.keys()]) if (!needed.has(h) && s.blobs.delete(h)) blobs++
      return { changes: removed, blobs }
    },
    async usage(namespace, scope) {
      const s = scopeAt(keyOf(namespace, scope))
      let bytes = 0
      let changes = 0
      for (const commit of s?.commits ?? []) {
        changes += commit.changes.length
        for (const c of commit.changes) bytes += changeRowBytes(c)
      }
      for (const data of s?.blobs.values() ?? []) bytes += data.length + 64
      return { changes, blobs: s?.blobs.size ?? 0, bytes }
    },
  }
}
