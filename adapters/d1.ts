import { VfsError } from '../src/contract/errors.js'
import {
  conflictError,
  expectationMet,
  subtreeChecks,
  type HeldEntry,
  subtreeConflictError,
  subtreeRange,
  type EntryKind,
  type ScopeSnapshot,
  type StoredEntry,
  type StoreOp,
  type VfsStore,
} from '../src/contract/store.js'
import { joinChunks, splitChunks, TOMBSTONE, VFS_ENTRY_TABLES, VFS_TABLES } from './sql-layout.js'
import { fromHex, toHex } from './hex.js'
import { d1History, d1HistoryStatements, D1_HISTORY_SCHEMA } from './d1-history.js'

/**
 * The part of a D1 binding (`env.DB`) this adapter uses, declared structurally so the library never
 * imports Workers types; a real `D1Database` satisfies it.
 */
export interface D1StatementLike {
  bind(...values: unknown[]): D1StatementLike
}
export interface D1DatabaseLike {
  prepare(query: string): D1StatementLike
  batch(statements: D1StatementLike[]): Promise<Array<{ results?: unknown[] }>>
}

export interface D1StoreOptions {
  /**
   * Create the tables on first use (idempotent, one extra batch per store instance). Turn it off
   * when the schema comes from the migration file (`worker-edge/migrations/0001_vfs.sql`). Default true.
   */
  autoMigrate?: boolean
}

/** A D1 store plus its schema step. */
export interface D1Store extends VfsStore {
  /** Creates the tables if they do not exist; safe to call any number of times. */
  migrate(): Promise<void>
}

/**
 * The conflict guard. D1 has no procedural branching, so a batch cannot "check, then abort": instead
 * it inserts, per group of version checks, one row whose value is "every check passed". A failed
 * check makes the row violate this named CHECK constraint, which fails the whole batch (a batch is
 * one transaction) before anything sticks; the constraint's name in the error tells a conflict from
 * any other failure. The rows are removed again at the end of the batch.
 */
const GUARD_TABLE = `CREATE TABLE IF NOT EXISTS vfs_guard (
  ok INTEGER NOT NULL CONSTRAINT vfs_version_conflict CHECK (ok = 1))`
const CONFLICT = 'vfs_version_conflict'

/** The DDL `migrate()` runs, in order; the migration file holds the same statements. */
export const D1_SCHEMA: readonly string[] = [...VFS_TABLES, GUARD_TABLE]

// D1 limits: 100 bound parameters per statement, 2,000,000 bytes per value. Content crosses the
// binding as hex text (D1 would send a BLOB as a JSON array of numbers, ~3.6 bytes per byte, and
// return it as a JS number[]): 512 KiB chunks are 1 MiB of hex, well under the value limit.
const MAX_PARAMS = 100
const CHUNK = 512 * 1024
/** Hex characters per chunk-insert statement, so no single statement carries more than ~2 MiB. */
const MAX_HEX_PER_STATEMENT = 2 * 1024 * 1024

/**
 * A store in Cloudflare D1 (`d1Store(env.DB)`). Each commit is one `db.batch()`, which D1 runs as a
 * single transaction: version checks (through the guard above), the scope version bump, deletes and
 * puts land together or not at all.
 */
export function d1Store(raw: D1DatabaseLike, options: D1StoreOptions = {}): D1Store {
  let schema: Promise<void> | undefined
  const db: D1DatabaseLike = {
    prepare: query => raw.prepare(query),
    batch: statements => raw.batch(statements).catch(missingSchema),
  }
  const migrate = async () => {
    await raw.batch([...D1_SCHEMA, ...D1_HISTORY_SCHEMA].map(ddl => raw.prepare(ddl)))
  }
  const ready = () => {
    if (options.autoMigrate === false) return Promise.resolve()
    // A failed attempt is forgotten, so the next call retries instead of failing forever.
    schema ??= migrate().catch(error => {
      schema = undefined
      throw error
    })
    return schema
  }

  return {
    kind: 'd1',
    migrate,
    history: d1History(db, ready),
    async load(namespace, scope): Promise<ScopeSnapshot> {
      await ready()
      // One batch, one transaction: the three reads see the same commit.
      const [scopes, rows, chunks] = await db.batch([
        db.prepare('SELECT version FROM vfs_scopes WHERE namespace = ?1 AND scope = ?2').bind(namespace, scope),
        db
          .prepare('SELECT path, kind, size, version, mtime, ctime FROM vfs_entries WHERE namespace = ?1 AND scope = ?2')
          .bind(namespace, scope),
        db
          .prepare('SELECT path, hex(data) AS hex FROM vfs_chunks WHERE namespace = ?1 AND scope = ?2 ORDER BY path, chunk')
          .bind(namespace, scope),
      ])
      const version = Math.abs((scopes.results as { version: number }[] | undefined)?.[0]?.version ?? 0)
      const parts = new Map<string, Uint8Array[]>()
      for (const c of (chunks.results ?? []) as { path: string; hex: string }[]) {
        const list = parts.get(c.path)
        if (list) list.push(fromHex(c.hex))
        else parts.set(c.path, [fromHex(c.hex)])
      }
      const entries: StoredEntry[] = (
        (rows.results ?? []) as { path: string; kind: EntryKind; size: number; version: number; mtime: number; ctime: number }[]
      ).map(r => ({
        path: r.path,
        kind: r.kind,
        data: joinChunks(parts.get(r.path) ?? [], r.size, r.path),
        version: r.version,
        mtime: r.mtime,
        ctime: r.ctime,
      }))
      return { version, entries }
    },
    async commit(namespace, scope, ops: StoreOp[], record) {
      await ready()
      // Building the statements reads every op; a bad op throws here, before anything is sent.
      const plan = planCommit(db, namespace, scope, ops)
      // History goes in the same batch (one transaction), right after the version bump, while the
      // entries still hold what the batch replaces (a directory put reads what was there).
      if (record) plan.statements.splice(plan.bumpIndex + 1, 0, ...d1HistoryStatements(db, namespace, scope, record))
      try {
        const results = await db.batch(plan.statements)
        return (results[plan.bumpIndex].results as { version: number }[])[0].version
      } catch (error) {
        if (!String((error as Error)?.message ?? error).includes(CONFLICT)) throw error
        throw await explainConflict(db, namespace, scope, ops, plan.checks, subtreeChecks(ops), error)
      }
    },
    async deleteScope(namespace, scope) {
      await ready()
      await db.batch(
        [...VFS_ENTRY_TABLES, 'vfs_changes', 'vfs_blobs', TOMBSTONE].map(t =>
          db.prepare(t === TOMBSTONE ? t : `DELETE FROM ${t} WHERE namespace = ?1 AND scope = ?2`).bind(namespace, scope),
        ),
      )
    },
    async listScopes(namespace) {
      await ready()
      const [r] = await db.batch([db.prepare('SELECT scope FROM vfs_scopes WHERE namespace = ?1 AND version > 0').bind(namespace)])
      // Sorted here: SQLite orders by UTF-8 bytes, JavaScript (and memoryStore) by UTF-16 units.
      return ((r.results ?? []) as { scope: string }[]).map(x => x.scope).sort()
    },
  }
}

/**
 * Before the schema exists (autoMigrate off and the migration never applied) every statement fails
 * with D1's "no such table: vfs_…": say what to do instead.
 */
function missingSchema(error: unknown): never {
  if (/no such table: vfs_/.test(String((error as Error | null)?.message ?? error))) {
    throw new VfsError(
      'ESTORE',
      undefined,
      'the D1 tables of agent-vfs do not exist: apply the migration that creates them (`wrangler d1 migrations apply <database>`, with --local under wrangler dev), call migrate() once, or leave autoMigrate on',
      { cause: error },
    )
  }
  throw error
}

interface Check {
  path: string
  /** The op's expectation as a number for SQL: a version, DIR or DIR_OR_ABSENT. */
  expected: number
}

/** How {@link Expectation}s cross into SQL (versions are never negative). */
const DIR = -1
const DIR_OR_ABSENT = -2

/**
 * Turns a batch of ops into D1 statements, in this order: guards, scope version bump, chunk and
 * entry deletes, entry upserts, chunk inserts, guard cleanup. Multi-row statements keep the count
 * low; every statement binds namespace and scope as ?1 and ?2 and stays within 100 parameters.
 */
function planCommit(db: D1DatabaseLike, namespace: string, scope: string, ops: StoreOp[]) {
  const checks: Check[] = []
  const touched: string[] = []
  const deleted: string[] = []
  const puts: { path: string; kind: EntryKind; size: number; mtime: number; ctime: number }[] = []
  const chunks: { path: string; index: number; hex: string }[] = []
  for (const op of ops) {
    const path = op.path
    if (op.expectedVersion !== null)
      checks.push({
        path,
        expected:
          op.expectedVersion === 'dir'
            ? DIR
            : op.expectedVersion === 0 && op.op === 'put' && op.kind === 'dir'
              ? DIR_OR_ABSENT
              : op.expectedVersion,
      })
    if (op.op === 'check') continue
    touched.push(path)
    if (op.op === 'delete') {
      deleted.push(path)
      continue
    }
    const data = op.data
    puts.push({ path, kind: op.kind, size: data.length, mtime: op.mtime, ctime: op.ctime })
    splitChunks(data, CHUNK).forEach((part, index) => chunks.push({ path, index, hex: toHex(part) }))
  }

  const statements: D1StatementLike[] = []
  const add = (sql: string, params: unknown[]) => statements.push(db.prepare(sql).bind(namespace, scope, ...params))
  /** `(?a, ?b, …)`: the placeholders of row `row` of a `width`-column VALUES list, after ?1 and ?2. */
  const slots = (row: number, width: number) => `(${Array.from({ length: width }, (_, col) => `?${3 + row * width + col}`).join(', ')})`

  for (const group of groups(checks, (MAX_PARAMS - 2) >> 1)) {
    add(
      `INSERT INTO vfs_guard (ok) SELECT NOT EXISTS (SELECT 1 FROM (VALUES ${group.map((_, i) => slots(i, 2)).join(', ')}) AS x
       WHERE CASE x.column2
         WHEN ${DIR} THEN COALESCE((SELECT e.kind FROM vfs_entries AS e WHERE e.namespace = ?1 AND e.scope = ?2 AND e.path = x.column1), '') != 'dir'
         WHEN ${DIR_OR_ABSENT} THEN COALESCE((SELECT e.kind FROM vfs_entries AS e WHERE e.namespace = ?1 AND e.scope = ?2 AND e.path = x.column1), 'dir') != 'dir'
         ELSE COALESCE((SELECT e.version FROM vfs_entries AS e WHERE e.namespace = ?1 AND e.scope = ?2 AND e.path = x.column1), 0) != x.column2 END)`,
      group.flatMap(c => [c.path, c.expected]),
    )
  }
  // Entries below a directory are one key range (SQLite compares TEXT bytewise); each count must match.
  const subtrees = subtreeChecks(ops)
  for (const group of groups(subtrees, Math.floor((MAX_PARAMS - 2) / 3))) {
    add(
      `INSERT INTO vfs_guard (ok) SELECT NOT EXISTS (SELECT 1 FROM (VALUES ${group.map((_, i) => slots(i, 3)).join(', ')}) AS x
       WHERE (SELECT count(*) FROM vfs_entries AS e WHERE e.namespace = ?1 AND e.scope = ?2 AND e.path >= x.column1 AND e.path < x.column2) != x.column3)`,
      group.flatMap(c => {
        const { from, to } = subtreeRange(c.path)
        return [from, to, c.expected]
      }),
    )
  }
  const bumpIndex = statements.length
  // A deleted scope keeps its version negated (see deleteScope): continue from it.
  add(
    `INSERT INTO vfs_scopes (namespace, scope, version) VALUES (?1, ?2, 1)
       ON CONFLICT (namespace, scope) DO UPDATE SET version = abs(version) + 1 RETURNING version`,
    [],
  )
  for (const group of groups(touched, MAX_PARAMS - 2)) {
    add(`DELETE FROM vfs_chunks WHERE namespace = ?1 AND scope = ?2 AND path IN ${slots(0, group.length)}`, group)
  }
  for (const group of groups(deleted, MAX_PARAMS - 2)) {
    add(`DELETE FROM vfs_entries WHERE namespace = ?1 AND scope = ?2 AND path IN ${slots(0, group.length)}`, group)
  }
  for (const group of groups(puts, Math.floor((MAX_PARAMS - 2) / 5))) {
    // The entry version is read from the row the bump just wrote, so it is the new scope version.
    add(
      `INSERT OR REPLACE INTO vfs_entries (namespace, scope, path, kind, size, version, mtime, ctime)
       SELECT ?1, ?2, x.column1, x.column2, x.column3, s.version, x.column4, x.column5
       FROM (VALUES ${group.map((_, i) => slots(i, 5)).join(', ')}) AS x, vfs_scopes AS s WHERE s.namespace = ?1 AND s.scope = ?2`,
      group.flatMap(p => [p.path, p.kind, p.size, p.mtime, p.ctime]),
    )
  }
  for (const group of groups(chunks, Math.floor((MAX_PARAMS - 2) / 3), c => c.hex.length, MAX_HEX_PER_STATEMENT)) {
    add(
      `INSERT INTO vfs_chunks (namespace, scope, path, chunk, data) VALUES ${group.map((_, i) => `(?1, ?2, ?${3 + 3 * i}, ?${4 + 3 * i}, unhex(?${5 + 3 * i}))`).join(', ')}`,
      group.flatMap(c => [c.path, c.index, c.hex]),
    )
  }
  if (checks.length > 0 || subtrees.length > 0) statements.push(db.prepare('DELETE FROM vfs_guard'))
  return { statements, bumpIndex, checks }
}

/** Splits items into groups of at most `size` items and, optionally, at most `budget` total weight. */
function groups<T>(items: T[], size: number, weight?: (item: T) => number, budget = Infinity): T[][] {
  const out: T[][] = []
  let current: T[] = []
  let load = 0
  for (const item of items) {
    const w = weight?.(item) ?? 0
    if (current.length > 0 && (current.length >= size || load + w > budget)) {
      out.push(current)
      current = []
      load = 0
    }
    current.push(item)
    load += w
  }
  if (current.length > 0) out.push(current)
  return out
}

/**
 * The guard says only that some check failed. Read the versions back to name the path; if another
 * commit has moved them again meanwhile, name the first checked path.
 */
async function explainConflict(
  db: D1DatabaseLike,
  namespace: string,
  scope: string,
  ops: StoreOp[],
  checks: Check[],
  subtrees: Check[],
  cause: unknown,
): Promise<VfsError> {
  try {
    for (const c of subtrees) {
      const { from, to } = subtreeRange(c.path)
      const [r] = await db.batch([
        db
          .prepare('SELECT count(*) AS n FROM vfs_entries WHERE namespace = ?1 AND scope = ?2 AND path >= ?3 AND path < ?4')
          .bind(namespace, scope, from, to),
      ])
      const has = (r.results as { n: number }[])[0].n
      if (has !== c.expected) return subtreeConflictError(c.path, c.expected, has)
    }
    const found = new Map<string, HeldEntry>()
    const results = await db.batch(
      groups(checks, MAX_PARAMS - 2).map(group =>
        db
          .prepare(
            `SELECT path, version, kind FROM vfs_entries WHERE namespace = ?1 AND scope = ?2 AND path IN (${group.map((_, i) => `?${i + 3}`).join(', ')})`,
          )
          .bind(namespace, scope, ...group.map(c => c.path)),
      ),
    )
    for (const r of results)
      for (const row of (r.results ?? []) as { path: string; version: number; kind: EntryKind }[]) found.set(row.path, row)
    const bad = ops.find(op => !expectationMet(op, found.get(op.path)))
    if (bad) return conflictError(bad.path, bad.expectedVersion, found.get(bad.path), { cause })
  } catch {
    // The diagnosis is a courtesy; the conflict stands either way.
  }
  return new VfsError('ECONFLICT', checks[0]?.path, 'an expected version did not match', { cause })
}
