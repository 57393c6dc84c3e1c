import type { CommitRecord, StoreHistory } from '../src/contract/history.js'
import type { D1DatabaseLike, D1StatementLike } from './d1.js'
import { fromHex, toHex } from './hex.js'
import {
  blobChunks,
  CHANGE_COLUMNS,
  changeFilter,
  changeRows,
  joinBlobs,
  orderedChanges,
  PRUNE_BLOBS,
  usageOf,
  VFS_HISTORY_TABLES,
  type ChangeRow,
} from './sql-history.js'

/** The DDL of history on D1 (`worker-edge/migrations/0005_vfs_history.sql` holds the same). */
export const D1_HISTORY_SCHEMA: readonly string[] = [...VFS_HISTORY_TABLES]

/** D1 binds at most 100 parameters per statement; blob chunks cross as hex like content (d1.ts). */
const CHANGE_ROWS = 9
const CHUNK = 512 * 1024

/**
 * The statements a commit adds to its batch (one D1 transaction): the change rows, stamped with
 * the version the batch's bump just wrote (read from vfs_scopes, as the entries are), a directory
 * put's `versionBefore` from the directory the store held (recordHeldDirectories in the contract), and the
 * blob chunks the scope lacks.
 */
export function d1HistoryStatements(db: D1DatabaseLike, namespace: string, scope: string, record: CommitRecord): D1StatementLike[] {
  const out: D1StatementLike[] = []
  const rows = changeRows(record)
  for (let i = 0; i < rows.length; i += CHANGE_ROWS) {
    const group = rows.slice(i, i + CHANGE_ROWS)
    const values = group.map((_, r) => `(${Array.from({ length: 10 }, (_, c) => `?${3 + r * 10 + c}`).join(', ')})`).join(', ')
    out.push(
      db
        .prepare(
          `INSERT INTO vfs_changes (namespace, scope, version, path, op, kind, version_before, hash_before, hash_after, size_before, size, actor, time)
           SELECT ?1, ?2, s.version, x.column1, x.column2, x.column3,
             CASE WHEN x.column2 = 'put' AND x.column3 = 'dir' AND x.column4 = 0 THEN COALESCE((SELECT e.version FROM vfs_entries AS e
               WHERE e.namespace = ?1 AND e.scope = ?2 AND e.path = x.column1 AND e.kind = 'dir'), 0) ELSE x.column4 END, x.column5, x.column6, x.column7, x.column8, x.column9, x.column10
           FROM (VALUES ${values}) AS x, vfs_scopes AS s WHERE s.namespace = ?1 AND s.scope = ?2`,
        )
        .bind(namespace, scope, ...group.flat()),
    )
  }
  for (const [hash, index, data] of blobChunks(record, CHUNK))
    out.push(
      db
        .prepare('INSERT OR IGNORE INTO vfs_blobs (namespace, scope, hash, chunk, data) VALUES (?1, ?2, ?3, ?4, unhex(?5))')
        .bind(namespace, scope, hash, index, toHex(data)),
    )
  return out
}

export function d1History(db: D1DatabaseLike, ready: () => Promise<void>): StoreHistory {
  const all = async <T>(sql: string, ...params: unknown[]): Promise<T[]> => {
    await ready()
    const [r] = await db.batch([db.prepare(sql).bind(...params)])
    return (r.results ?? []) as T[]
  }
  return {
    async changes(namespace, scope, query = {}) {
      const { where, params } = changeFilter(query)
      return orderedChanges(
        await all<ChangeRow>(
          `SELECT ${CHANGE_COLUMNS} FROM vfs_changes WHERE ${where} ORDER BY version, path`,
          namespace,
          scope,
          ...params,
        ),
        query,
      )
    },
    async blobs(namespace, scope, hashes) {
      const rows: Array<{ hash: string; data: Uint8Array }> = []
      for (const hash of new Set(hashes))
        for (const r of await all<{ hash: string; hex: string }>(
          'SELECT hash, hex(data) AS hex FROM vfs_blobs WHERE namespace = ?1 AND scope = ?2 AND hash = ?3 ORDER BY chunk',
          namespace,
          scope,
          hash,
        ))
          rows.push({ hash: r.hash, data: fromHex(r.hex) })
      return joinBlobs(rows)
    },
    async oldest(namespace, scope) {
      const [r] = await all<{ v: number | null }>(
        'SELECT min(version) AS v FROM vfs_changes WHERE namespace = ?1 AND scope = ?2',
        namespace,
        scope,
      )
      return r?.v === null || r?.v === undefined ? undefined : Number(r.v)
    },
    async prune(namespace, scope, upTo) {
      await ready()
      const [gone, freed] = await db.batch([
        db
          .prepare('DELETE FROM vfs_changes WHERE namespace = ?1 AND scope = ?2 AND version <= ?3 RETURNING 1')
          .bind(namespace, scope, upTo),
        db.prepare(`${PRUNE_BLOBS} RETURNING hash`).bind(namespace, scope),
      ])
      return { changes: (gone.results ?? []).length, blobs: new Set(((freed.results ?? []) as { hash: string }[]).map(r => r.hash)).size }
    },
    async usage(namespace, scope) {
      const rows = await all<ChangeRow>(`SELECT ${CHANGE_COLUMNS} FROM vfs_changes WHERE namespace = ?1 AND scope = ?2`, namespace, scope)
      const [b] = await all<{ n: number; bytes: number }>(
        'SELECT count(DISTINCT hash) AS n, coalesce(sum(length(data)), 0) AS bytes FROM vfs_blobs WHERE namespace = ?1 AND scope = ?2',
        namespace,
        scope,
      )
      return usageOf(rows, b)
    },
  }
}
