import { joinChunks, splitChunks, TOMBSTONE, VFS_ENTRY_TABLES, VFS_TABLES } from './sql-layout.js'
import { VFS_HISTORY_TABLES } from './sql-history.js'
import { durableObjectHistory } from './durable-object-history.js'
import { recordHeldDirectories } from '../src/contract/history.js'
import {
  checkExpectedVersions,
  checkSubtrees,
  subtreeRange,
  type EntryKind,
  type ScopeSnapshot,
  type StoredEntry,
  type StoreOp,
  type VfsStore,
} from '../src/contract/store.js'

/** A value SQLite-backed Durable Object storage binds and returns. */
type SqlValue = ArrayBuffer | string | number | null

/**
 * The part of `DurableObjectStorage` (a SQLite-backed Durable Object's `ctx.storage`) this adapter
 * uses. Declared structurally so the library never imports Workers types or `cloudflare:` modules
 * and stays loadable in Node and browsers; the real `ctx.storage` satisfies it.
 */
export interface DurableObjectSqlStorageLike {
  sql: { exec(query: string, ...bindings: SqlValue[]): { toArray(): Record<string, SqlValue>[] } }
  transactionSync<T>(closure: () => T): T
}

/**
 * A Durable Object SQLite value (a row, too) is capped at ~2 MB, so content is cut into 1 MiB
 * chunks, one row each; a file's chunks are rewritten together in the commit that puts it.
 */
const CHUNK = 1024 * 1024

/** Storages whose schema exists already; a DO may build several stores over one `ctx.storage`. */
const ready = new WeakSet<object>()

/**
 * A store in a SQLite-backed Durable Object (`durableObjectStore(ctx.storage)`). Every commit is one
 * `transactionSync`, so a batch lands entirely or not at all, and the Durable Object's single thread
 * makes version checks and writes one indivisible step. Tables are created on first use.
 */
export function durableObjectStore(storage: DurableObjectSqlStorageLike): VfsStore {
  const sql = <T = Record<string, SqlValue>>(query: string, ...bindings: SqlValue[]) =>
    storage.sql.exec(query, ...bindings).toArray() as T[]
  const schema = () => {
    if (ready.has(storage)) return
    storage.transactionSync(() => [...VFS_TABLES, ...VFS_HISTORY_TABLES].forEach(ddl => sql(ddl)))
    ready.add(storage)
  }
  const log = durableObjectHistory(sql, fn => storage.transactionSync(fn), schema, CHUNK)

  return {
    kind: 'durable-object',
    history: log.history,
    async load(namespace, scope): Promise<ScopeSnapshot> {
      schema()
      // One synchronous transaction: no commit can interleave between the three reads.
      return storage.transactionSync(() => {
        const version = Math.abs(
          sql<{ version: number }>('SELECT version FROM vfs_scopes WHERE namespace = ? AND scope = ?', namespace, scope)[0]?.version ?? 0,
        )
        const rows = sql<{ path: string; kind: EntryKind; size: number; version: number; mtime: number; ctime: number }>(
          'SELECT path, kind, size, version, mtime, ctime FROM vfs_entries WHERE namespace = ? AND scope = ?',
          namespace,
          scope,
        )
        const chunks = new Map<string, ArrayBuffer[]>()
        for (const c of sql<{ path: string; data: ArrayBuffer }>(
          'SELECT path, data FROM vfs_chunks WHERE namespace = ? AND scope = ? ORDER BY path, chunk',
          namespace,
          scope,
        )) {
          const list = chunks.get(c.path)
          if (list) list.push(c.data)
          else chunks.set(c.path, [c.data])
        }
        const entries: StoredEntry[] = rows.map(r => ({
          path: r.path,
          kind: r.kind,
          data: joinChunks(chunks.get(r.path) ?? [], r.size, r.path),
          version: r.version,
          mtime: r.mtime,
          ctime: r.ctime,
        }))
        return { version, entries }
      })
    },
    async commit(namespace, scope, ops: StoreOp[], record) {
      schema()
      // Throwing inside the closure (a conflict, a bad op) rolls back everything it wrote.
      return storage.transactionSync(() => {
        const held = (path: string) =>
          sql<{ version: number; kind: EntryKind }>(
            'SELECT version, kind FROM vfs_entries WHERE namespace = ? AND scope = ? AND path = ?',
            namespace,
            scope,
            path,
          )[0]
        recordHeldDirectories(record, held)
        checkExpectedVersions(ops, held)
        // SQLite compares TEXT bytewise, so the paths below a directory are one range of the key.
        checkSubtrees(ops, path => {
          const { from, to } = subtreeRange(path)
          return sql<{ n: number }>(
            'SELECT count(*) AS n FROM vfs_entries WHERE namespace = ? AND scope = ? AND path >= ? AND path < ?',
            namespace,
            scope,
            from,
            to,
          )[0].n
        })
        // A deleted scope keeps its version negated (see deleteScope): continue from it.
        const version = sql<{ version: number }>(
          `INSERT INTO vfs_scopes (namespace, scope, version) VALUES (?, ?, 1)
           ON CONFLICT (namespace, scope) DO UPDATE SET version = abs(version) + 1 RETURNING version`,
          namespace,
          scope,
        )[0].version
        for (const op of ops) {
          if (op.op === 'check') continue
          const path = op.path
          sql('DELETE FROM vfs_chunks WHERE namespace = ? AND scope = ? AND path = ?', namespace, scope, path)
          if (op.op === 'delete') {
            sql('DELETE FROM vfs_entries WHERE namespace = ? AND scope = ? AND path = ?', namespace, scope, path)
            continue
          }
          const data = op.data
          sql(
            'INSERT OR REPLACE INTO vfs_entries (namespace, scope, path, kind, size, version, mtime, ctime) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
            namespace,
            scope,
            path,
            op.kind,
            data.length,
            version,
            op.mtime,
            op.ctime,
          )
          // The binding takes an ArrayBuffer; splitChunks copies, so each buffer is exactly its chunk.
          splitChunks(data, CHUNK).forEach((part, i) =>
            sql(
              'INSERT INTO vfs_chunks (namespace, scope, path, chunk, data) VALUES (?, ?, ?, ?, ?)',
              namespace,
              scope,
              path,
              i,
              part.buffer as ArrayBuffer,
            ),
          )
        }
        if (record) log.write(namespace, scope, version, record)
        return version
      })
    },
    async deleteScope(namespace, scope) {
      schema()
      storage.transactionSync(() => {
        for (const table of [...VFS_ENTRY_TABLES, 'vfs_changes', 'vfs_blobs'])
          sql(`DELETE FROM ${table} WHERE namespace = ? AND scope = ?`, namespace, scope)
        sql(TOMBSTONE, namespace, scope)
      })
    },
    async listScopes(namespace) {
      schema()
      // Every commit writes a version row and deleteScope removes it, so vfs_scopes lists them all.
      // Sorted here, not in SQL: SQLite orders by UTF-8 bytes, JavaScript (and memoryStore) by UTF-16.
      return sql<{ scope: string }>('SELECT scope FROM vfs_scopes WHERE namespace = ? AND version > 0', namespace)
        .map(r => r.scope)
        .sort()
    },
  }
}
