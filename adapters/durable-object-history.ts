import type { CommitRecord, StoreHistory } from '../src/contract/history.js'
import {
  blobChunks,
  CHANGE_COLUMNS,
  changeFilter,
  changeRows,
  joinBlobs,
  orderedChanges,
  PRUNE_BLOBS,
  usageOf,
  type ChangeRow,
} from './sql-history.js'

type SqlValue = ArrayBuffer | string | number | null
type Sql = <T = Record<string, SqlValue>>(query: string, ...bindings: SqlValue[]) => T[]

/** Positional `?1…` bindings as the Durable Object's sql.exec takes them (it also takes numbered ones). */
const bind = (values: unknown[]) => values.map(v => (v instanceof Uint8Array ? (v.slice().buffer as ArrayBuffer) : (v as SqlValue)))

/** History of the Durable Object store (sql-history.ts); `write` runs inside the commit's transactionSync. */
export function durableObjectHistory(sql: Sql, transact: <T>(fn: () => T) => T, schema: () => void, chunk: number) {
  const history: StoreHistory = {
    async changes(namespace, scope, query = {}) {
      schema()
      const { where, params } = changeFilter(query)
      const rows = sql<ChangeRow>(
        `SELECT ${CHANGE_COLUMNS} FROM vfs_changes WHERE ${where} ORDER BY version, path`,
        namespace,
        scope,
        ...bind(params),
      )
      return orderedChanges(rows, query)
    },
    async blobs(namespace, scope, hashes) {
      schema()
      const rows: Array<{ hash: string; data: Uint8Array }> = []
      for (const hash of new Set(hashes))
        for (const r of sql<{ hash: string; data: ArrayBuffer }>(
          'SELECT hash, data FROM vfs_blobs WHERE namespace = ?1 AND scope = ?2 AND hash = ?3 ORDER BY chunk',
          namespace,
          scope,
          hash,
        ))
          rows.push({ hash: r.hash, data: new Uint8Array(r.data) })
      return joinBlobs(rows)
    },
    async oldest(namespace, scope) {
      schema()
      const v = sql<{ v: number | null }>(
        'SELECT min(version) AS v FROM vfs_changes WHERE namespace = ?1 AND scope = ?2',
        namespace,
        scope,
      )[0]?.v
      return v === null || v === undefined ? undefined : Number(v)
    },
    async prune(namespace, scope, upTo) {
      schema()
      return transact(() => {
        const changes = sql(
          'DELETE FROM vfs_changes WHERE namespace = ?1 AND scope = ?2 AND version <= ?3 RETURNING 1',
          namespace,
          scope,
          upTo,
        ).length
        const blobs = new Set(sql<{ hash: string }>(`${PRUNE_BLOBS} RETURNING hash`, namespace, scope).map(r => r.hash)).size
        return { changes, blobs }
      })
    },
    async usage(namespace, scope) {
      schema()
      const rows = sql<ChangeRow>(`SELECT ${CHANGE_COLUMNS} FROM vfs_changes WHERE namespace = ?1 AND scope = ?2`, namespace, scope)
      const b = sql<{ n: number; bytes: number }>(
        'SELECT count(DISTINCT hash) AS n, coalesce(sum(length(data)), 0) AS bytes FROM vfs_blobs WHERE namespace = ?1 AND scope = ?2',
        namespace,
        scope,
      )[0]
      return usageOf(rows, b)
    },
  }
  return {
    history,
    /** Inside the commit's transactionSync. */
    write(namespace: string, scope: string, version: number, record: CommitRecord) {
      for (const row of changeRows(record))
        sql(
          `INSERT INTO vfs_changes (namespace, scope, version, path, op, kind, version_before, hash_before, hash_after, size_before, size, actor, time)
           VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)`,
          namespace,
          scope,
          version,
          ...bind(row),
        )
      for (const [hash, index, data] of blobChunks(record, chunk))
        sql(
          'INSERT OR IGNORE INTO vfs_blobs (namespace, scope, hash, chunk, data) VALUES (?1, ?2, ?3, ?4, ?5)',
          namespace,
          scope,
          hash,
          index,
          ...bind([data]),
        )
    },
  }
}
