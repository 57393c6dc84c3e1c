import { changeMatches, changeRowBytes, type CommitRecord, type StoredChange, type StoreHistoryQuery } from '../src/contract/history.js'
import { splitChunks } from './sql-layout.js'

/**
 * History in the SQLite family (Durable Object, D1): one row per changed path per commit, and
 * before-images in chunk rows keyed by hash (a value is capped at ~2 MB there, as for content).
 * The adapters run these statements inside the commit's own transaction (transactionSync, or the
 * D1 batch), so history lands with the batch or not at all.
 */
export const VFS_HISTORY_TABLES = [
  `CREATE TABLE IF NOT EXISTS vfs_changes (
  namespace TEXT NOT NULL, scope TEXT NOT NULL, version INTEGER NOT NULL, path TEXT NOT NULL, op TEXT NOT NULL,
  kind TEXT NOT NULL, version_before INTEGER NOT NULL, hash_before TEXT, hash_after TEXT, size_before INTEGER NOT NULL,
  size INTEGER NOT NULL, actor TEXT, time REAL NOT NULL,
  PRIMARY KEY (namespace, scope, version, path))`,
  `CREATE TABLE IF NOT EXISTS vfs_blobs (
  namespace TEXT NOT NULL, scope TEXT NOT NULL, hash TEXT NOT NULL, chunk INTEGER NOT NULL, data BLOB NOT NULL,
  PRIMARY KEY (namespace, scope, hash, chunk))`,
] as const

/** One row of vfs_changes as it is bound: everything but namespace, scope and version. */
export function changeRows(record: CommitRecord): unknown[][] {
  return record.changes.map(c => [
    c.path,
    c.op,
    c.kind,
    c.versionBefore,
    c.hashBefore ?? null,
    c.hashAfter ?? null,
    c.sizeBefore,
    c.size,
    c.actor ?? null,
    record.time,
  ])
}

/** The chunk rows of a record's blobs: [hash, chunk index, bytes]. */
export function blobChunks(record: CommitRecord, chunk: number): Array<[string, number, Uint8Array]> {
  const out: Array<[string, number, Uint8Array]> = []
  for (const b of record.blobs) {
    const parts = splitChunks(b.data, chunk)
    if (parts.length === 0) out.push([b.hash, 0, new Uint8Array(0)])
    parts.forEach((part, i) => out.push([b.hash, i, part]))
  }
  return out
}

/** The WHERE clause and parameters (after ?1 namespace, ?2 scope) of a history query. */
export function changeFilter(query: StoreHistoryQuery): { where: string; params: unknown[] } {
  const params: unknown[] = []
  let where = 'namespace = ?1 AND scope = ?2'
  if (query.after !== undefined) where += ` AND version > ?${2 + params.push(query.after)}`
  if (query.upTo !== undefined) where += ` AND version <= ?${2 + params.push(query.upTo)}`
  if (query.path !== undefined) where += ` AND path = ?${2 + params.push(query.path)}`
  return { where, params }
}

export const CHANGE_COLUMNS = 'version, path, op, kind, version_before, hash_before, hash_after, size_before, size, actor, time'

export interface ChangeRow {
  version: number
  path: string
  op: 'put' | 'delete'
  kind: 'file' | 'dir'
  version_before: number
  hash_before: string | null
  hash_after: string | null
  size_before: number
  size: number
  actor: string | null
  time: number
}

export function toStoredChange(r: ChangeRow): StoredChange {
  const c: StoredChange = {
    version: Number(r.version),
    path: r.path,
    op: r.op,
    kind: r.kind,
    versionBefore: Number(r.version_before),
    sizeBefore: Number(r.size_before),
    size: Number(r.size),
    time: Number(r.time),
  }
  if (r.hash_before !== null) c.hashBefore = r.hash_before
  if (r.hash_after !== null) c.hashAfter = r.hash_after
  if (r.actor !== null) c.actor = r.actor
  return c
}

/** Rows read back, ordered and limited as the query asks. */
export function orderedChanges(rows: ChangeRow[], query: StoreHistoryQuery): StoredChange[] {
  const out = rows
    .map(toStoredChange)
    .filter(c => changeMatches(c, query))
    .sort((a, b) => a.version - b.version || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))
  return query.limit === undefined ? out : out.slice(0, query.limit)
}

/** Deletes blobs no remaining change of the scope needs (?1 namespace, ?2 scope). */
export const PRUNE_BLOBS = `DELETE FROM vfs_blobs WHERE namespace = ?1 AND scope = ?2 AND hash NOT IN
  (SELECT hash_before FROM vfs_changes WHERE namespace = ?1 AND scope = ?2 AND hash_before IS NOT NULL)`

/** Joins a blob's chunk rows (ordered by chunk) per hash. */
export function joinBlobs(rows: Array<{ hash: string; data: Uint8Array }>): Map<string, Uint8Array> {
  const parts = new Map<string, Uint8Array[]>()
  for (const r of rows) {
    const list = parts.get(r.hash)
    if (list) list.push(r.data)
    else parts.set(r.hash, [r.data])
  }
  const out = new Map<string, Uint8Array>()
  for (const [hash, list] of parts) {
    const size = list.reduce((n, p) => n + p.length, 0)
    const data = new Uint8Array(size)
    let at = 0
    for (const p of list) {
      data.set(p, at)
      at += p.length
    }
    out.set(hash, data)
  }
  return out
}

/** History's bytes from its change rows and the blob totals, as `HistoryUsage` reports them. */
export function usageOf(rows: readonly ChangeRow[], blobs: { n: unknown; bytes: unknown }) {
  let bytes = 0
  for (const r of rows) bytes += changeRowBytes(toStoredChange(r))
  const n = Number(blobs.n)
  return { changes: rows.length, blobs: n, bytes: bytes + Number(blobs.bytes) + 64 * n }
}
