import { VfsError } from '../src/contract/errors.js'
import {
  checkExpectedVersions,
  checkSubtrees,
  type EntryKind,
  type HeldEntry,
  subtreeChecks,
  subtreeRange,
  type ScopeSnapshot,
  type StoreOp,
  type VfsStore,
} from '../src/contract/store.js'
import { postgresHistory } from './postgres-history.js'
import { recordHeldDirectories, type CommitRecord } from '../src/contract/history.js'

/**
 * What the adapter needs from a Postgres driver: `query(text, params)` resolving to `{ rows }`.
 * `pg.Pool`, `pg.Client`, PGlite and pg-compatible serverless drivers all fit. The adapter never
 * imports a driver; it only calls the object it is given.
 */
export interface SqlClient {
  query(text: string, params?: unknown[]): Promise<{ rows: unknown[] }>
}

/** Options of {@link postgresStore}. */
export interface PostgresStoreOptions {
  /**
   * How commits get a transaction depends on the client's shape, checked in this order:
   * - `transaction(fn)` (PGlite): the batch runs inside it;
   * - `connect()` plus a numeric `totalCount` (a pool: `pg.Pool`, `@neondatabase/serverless` Pool):
   *   each batch checks out one connection for BEGIN … COMMIT and releases it;
   * - anything else is one connection (`pg.Client`): BEGIN … COMMIT on it directly, and every
   *   query of this store waits its turn so none lands inside another's transaction.
   */
  client: SqlClient
  /**
   * A second client for the plain reads (loading scopes, listing scopes, reading history), e.g. a
   * small second `pg.Pool` on the same server, so a read never waits for a connection behind the
   * writers' transactions in `client`'s pool. Every transaction (commit, deleteScope, prune,
   * migrate) stays on `client`. It must reach the same primary server as `client`, not a replica:
   * a read right after an acknowledged commit has to see it. Default: `client` does both.
   */
  reads?: SqlClient
  /** Prefix of the tables, `<table>_scopes`, `<table>_entries` and history's `<table>_changes`, `<table>_blobs`. A plain SQL identifier; default `agent_vfs`. */
  table?: string
}

/** A {@link VfsStore} on Postgres, plus the schema migration it needs. */
export interface PostgresStore extends VfsStore {
  /** Creates the tables if they do not exist. Idempotent; call it once before first use (e.g. at deploy). */
  migrate(): Promise<void>
}

type Transact = <T>(fn: (q: SqlClient) => Promise<T>) => Promise<T>
interface PoolLike extends SqlClient {
  connect(): Promise<SqlClient & { release(error?: Error | boolean): void }>
}

/**
 * A store in Postgres: one row per entry (content as `bytea`, so files up to 1 GB need no
 * chunking) and one version row per scope. A commit is one transaction of three statements: bump the
 * scope's version row (which also locks it, so concurrent commits on one scope queue up and their
 * version checks cannot race), one DELETE of every path the batch writes whose RETURNING gives the
 * versions to check (in the same statement, a SELECT of the versions of `check` ops and a count of
 * the entries below each `expectedBelow` directory, both seeing the state before the DELETE), and
 * one statement of INSERTs — the puts' multi-row INSERT, the history record's change rows and
 * before-images, as one WITH — so history costs no round trip of its own (batches past 10,000 rows
 * go in chunks; a plain INSERT after the DELETE measured ~20 % cheaper than an upsert, and the
 * checks cost no statement of their own). Counting below a
 * directory scans the scope's rows (`starts_with` works under any collation, which a range on the
 * primary key would not); only batches that remove, move or copy a directory ask for it.
 * `deleteScope` keeps the scope's row with its version negated, so versions never repeat.
 * Namespaces, scopes and paths are `text`, so they cannot hold NUL. There is no `watch`: another
 * writer's commit shows up as ECONFLICT on the next write, and `refresh()` loads it.
 * Call {@link PostgresStore.migrate} once before use.
 */
export function postgresStore(options: PostgresStoreOptions): PostgresStore {
  const { client, reads, table = 'agent_vfs' } = options ?? ({} as PostgresStoreOptions)
  if (!client || typeof client.query !== 'function') {
    throw new VfsError('EINVAL', undefined, 'postgresStore needs { client } with query(text, params), e.g. a pg.Pool or PGlite')
  }
  if (reads !== undefined && (!reads || typeof reads.query !== 'function')) {
    throw new VfsError('EINVAL', undefined, 'postgresStore { reads } must have query(text, params), e.g. a second pg.Pool')
  }
  if (typeof table !== 'string' || !/^[A-Za-z_][A-Za-z0-9_]{0,47}$/.test(table)) {
    throw new VfsError(
      'EINVAL',
      undefined,
      `table must be a plain SQL identifier (letters, digits, _; at most 48), got ${JSON.stringify(table)}`,
    )
  }
  const scopes = `"${table}_scopes"`
  const entries = `"${table}_entries"`
  const raw = transactionsFor(client)
  // Every read() below is one statement outside any transaction (reads inside a commit use the
  // commit's own connection, `q`), so it may run on another connection. Under read committed a
  // statement sees every transaction committed before it started, on whichever connection: a read
  // after an acknowledged commit sees it, a read beside one in flight sees all of it or none,
  // and it takes no lock a writer waits for. loadMany is one statement, so a scope's version and
  // entries still come from one snapshot; conditional writes are checked inside the commit anyway.
  const plainRead: Transact = reads ? fn => fn(reads) : raw.read
  // Before migrate() every statement fails with "relation does not exist": say what to do instead.
  const missingTables = (error: unknown): never => {
    if ((error as { code?: unknown } | null)?.code === UNDEFINED_TABLE) {
      throw new VfsError(
        'ESTORE',
        undefined,
        `the tables ${table}_scopes and ${table}_entries do not exist: call migrate() once before use (e.g. at deploy)`,
        { cause: error },
      )
    }
    throw error
  }
  const transact: Transact = fn => raw.transact(fn).catch(missingTables)
  const read: Transact = fn => plainRead(fn).catch(missingTables)
  const log = postgresHistory(table, read, transact)

  return {
    kind: 'postgres',
    history: log.history,
    async migrate() {
      await raw.transact(async q => {
        // Two processes migrating at once would race on CREATE TABLE IF NOT EXISTS; serialise them.
        await q.query(`SELECT pg_advisory_xact_lock(hashtext($1))`, [`agent-vfs migrate ${table}`])
        await q.query(
          `CREATE TABLE IF NOT EXISTS ${scopes} (namespace text NOT NULL, scope text NOT NULL, version int8 NOT NULL, PRIMARY KEY (namespace, scope))`,
        )
        await q.query(
          `CREATE TABLE IF NOT EXISTS ${entries} (namespace text NOT NULL, scope text NOT NULL, path text NOT NULL, kind text NOT NULL, ` +
            `data bytea NOT NULL, version int8 NOT NULL, mtime float8 NOT NULL, ctime float8 NOT NULL, PRIMARY KEY (namespace, scope, path))`,
        )
        for (const statement of log.migrations) await q.query(statement)
      })
    },
    async load(namespace, scope): Promise<ScopeSnapshot> {
      return (await loadMany(namespace, [scope]))[0]
    },
    loadMany,
    commit(namespace, scope, ops: StoreOp[], record) {
      return transact(async q => {
        const bumped = await q.query(
          `INSERT INTO ${scopes} AS s (namespace, scope, version) VALUES ($1, $2, 1) ` +
            `ON CONFLICT (namespace, scope) DO UPDATE SET version = abs(s.version) + 1 RETURNING s.version`,
          [namespace, scope],
        )
        const version = Number((bumped.rows[0] as { version: unknown }).version)
        // One DELETE clears every path the batch writes (puts are inserted again below) and returns
        // the versions it removed; the same statement reads the versions of check ops and counts
        // entries below directories, as they were before the DELETE. The scope row locked above
        // keeps every other commit on this scope out until we finish.
        const subtrees = subtreeChecks(ops)
        const found = await q.query(
          `WITH removed AS (DELETE FROM ${entries} WHERE namespace = $1 AND scope = $2 AND path = ANY($3::text[]) RETURNING path, version, kind) ` +
            `SELECT path, version, kind, NULL::int8 AS below FROM removed ` +
            `UNION ALL SELECT path, version, kind, NULL FROM ${entries} WHERE namespace = $1 AND scope = $2 AND path = ANY($4::text[]) ` +
            `UNION ALL SELECT d.path, NULL, NULL, (SELECT count(*) FROM ${entries} e WHERE e.namespace = $1 AND e.scope = $2 AND starts_with(e.path, d.prefix)) ` +
            `FROM unnest($5::text[], $6::text[]) AS d(path, prefix)`,
          [
            namespace,
            scope,
            ops.filter(op => op.op !== 'check').map(op => op.path),
            ops.filter(op => op.op === 'check').map(op => op.path),
            subtrees.map(c => c.path),
            subtrees.map(c => subtreeRange(c.path).prefix),
          ],
        )
        const current = new Map<string, HeldEntry>()
        const below = new Map<string, number>()
        for (const r of found.rows as { path: string; version: unknown; kind: EntryKind; below: unknown }[]) {
          if (r.below === null) current.set(r.path, { version: Number(r.version), kind: r.kind })
          else below.set(r.path, Number(r.below))
        }
        checkExpectedVersions(ops, path => current.get(path))
        checkSubtrees(ops, path => below.get(path) ?? 0)
        const puts = ops.filter((op): op is Extract<StoreOp, { op: 'put' }> => op.op === 'put')
        recordHeldDirectories(record, path => current.get(path))
        if (await insertAll(q, namespace, scope, version, puts, record)) return version
        for (let i = 0; i < puts.length; i += ROWS_PER_INSERT)
          await insert(q, namespace, scope, version, puts.slice(i, i + ROWS_PER_INSERT))
        if (record) await log.write(q, namespace, scope, version, record)
        return version
      })
    },
    async deleteScope(namespace, scope) {
      await transact(async q => {
        // The row stays, version negated: the next commit continues from it and listScopes skips it.
        await q.query(`UPDATE ${scopes} SET version = -abs(version) WHERE namespace = $1 AND scope = $2`, [namespace, scope])
        await q.query(`DELETE FROM ${entries} WHERE namespace = $1 AND scope = $2`, [namespace, scope])
        await log.drop(q, namespace, scope)
      })
    },
    async listScopes(namespace) {
      const { rows } = await read(q => q.query(`SELECT scope FROM ${scopes} WHERE namespace = $1 AND version > 0`, [namespace]))
      return (rows as { scope: string }[]).map(r => r.scope).sort()
    },
  }

  /** Loads scopes in one statement, so each scope's version and entries come from the same snapshot. */
  async function loadMany(namespace: string, names: readonly string[]): Promise<ScopeSnapshot[]> {
    const { rows } = await read(q =>
      q.query(
        `SELECT s.scope, abs(s.version) AS scope_version, e.path, e.kind, e.data, e.version, e.mtime, e.ctime FROM ${scopes} s ` +
          `LEFT JOIN ${entries} e ON e.namespace = s.namespace AND e.scope = s.scope WHERE s.namespace = $1 AND s.scope = ANY($2::text[])`,
        [namespace, [...names]],
      ),
    )
    const byScope = new Map<string, ScopeSnapshot>()
    for (const r of rows as Row[]) {
      let snapshot = byScope.get(r.scope)
      if (!snapshot) byScope.set(r.scope, (snapshot = { version: Number(r.scope_version), entries: [] }))
      if (r.path === null) continue // a scope whose entries were all deleted
      snapshot.entries.push({
        path: r.path,
        kind: r.kind,
        data: bytesOf(r.data),
        version: Number(r.version),
        mtime: Number(r.mtime),
        ctime: Number(r.ctime),
      })
    }
    return names.map(name => byScope.get(name) ?? { version: 0, entries: [] })
  }

  /** One multi-row INSERT. Each row's content is its own parameter, so drivers send it as binary. */
  async function insert(q: SqlClient, namespace: string, scope: string, version: number, puts: Extract<StoreOp, { op: 'put' }>[]) {
    const params: unknown[] = [namespace, scope, version]
    await q.query(entriesInsert(puts, params), params)
  }

  /** The INSERT of `puts` ($1 namespace, $2 scope, $3 version), pushing each row's parameters. */
  function entriesInsert(puts: Extract<StoreOp, { op: 'put' }>[], params: unknown[]): string {
    const values: string[] = []
    for (const op of puts) {
      const n = params.push(op.path, op.kind, op.data, op.mtime, op.ctime)
      values.push(`($1, $2, $${n - 4}, $${n - 3}, $${n - 2}, $3, $${n - 1}, $${n})`)
    }
    return `INSERT INTO ${entries} (namespace, scope, path, kind, data, version, mtime, ctime) VALUES ${values.join(', ')}`
  }

  /**
   * The batch's rows, change rows and before-images as ONE statement (INSERTs in a WITH): one
   * round trip whatever the batch holds. False (nothing sent) when they do not fit one statement's
   * parameters; the caller then inserts in chunks.
   */
  async function insertAll(
    q: SqlClient,
    namespace: string,
    scope: string,
    version: number,
    puts: Extract<StoreOp, { op: 'put' }>[],
    record: CommitRecord | undefined,
  ): Promise<boolean> {
    if (puts.length > ROWS_PER_INSERT) return false
    const params: unknown[] = [namespace, scope, version]
    const parts = puts.length > 0 ? [entriesInsert(puts, params)] : []
    const history = record ? log.inserts(record, params) : []
    if (!history || params.length > MAX_PARAMETERS) return false
    parts.push(...history)
    if (parts.length === 1) await q.query(parts[0], params)
    else if (parts.length > 1) await q.query(`WITH ${parts.map((p, i) => `w${i} AS (${p})`).join(', ')} SELECT 1`, params)
    return true
  }
}

/** SQLSTATE of "relation … does not exist". */
const UNDEFINED_TABLE = '42P01'

/** Postgres allows 65,535 parameters per statement; 5 per row plus 3 shared stays below it. */
const ROWS_PER_INSERT = 10_000
const MAX_PARAMETERS = 65_535

interface Row {
  scope: string
  scope_version: unknown
  path: string | null
  kind: 'file' | 'dir'
  data: Uint8Array
  version: unknown
  mtime: unknown
  ctime: unknown
}

/** pg gives a Buffer, PGlite a Uint8Array: hand out a plain Uint8Array view of the same bytes. */
function bytesOf(data: Uint8Array): Uint8Array {
  return data.constructor === Uint8Array ? data : new Uint8Array(data.buffer, data.byteOffset, data.byteLength)
}

/** Picks how to run a transaction (and plain reads) for the client's shape; see {@link PostgresStoreOptions.client}. */
function transactionsFor(client: SqlClient): { transact: Transact; read: Transact } {
  const c = client as SqlClient & Record<string, unknown>
  if (typeof c.transaction === 'function') {
    const transact: Transact = fn => (c.transaction as (f: typeof fn) => ReturnType<typeof fn>)(fn)
    return { transact, read: fn => fn(client) }
  }
  if (typeof c.connect === 'function' && typeof c.totalCount === 'number') {
    const pool = client as PoolLike
    const transact: Transact = async fn => {
      const conn = await pool.connect()
      let broken: Error | undefined
      try {
        return await inTransaction(conn, fn, error => (broken = error))
      } finally {
        conn.release(broken) // a connection whose ROLLBACK failed is discarded, not reused
      }
    }
    return { transact, read: fn => fn(client) }
  }
  // One connection: queue everything, so a read never runs inside another call's transaction.
  let tail: Promise<unknown> = Promise.resolve()
  const serial: Transact = fn => {
    const run = tail.then(() => fn(client))
    tail = run.catch(() => undefined)
    return run
  }
  return { transact: fn => serial(q => inTransaction(q, fn, () => undefined)), read: serial }
}

/** BEGIN, `fn`, COMMIT on one connection; ROLLBACK and rethrow if anything fails. */
async function inTransaction<T>(q: SqlClient, fn: (q: SqlClient) => Promise<T>, onBroken: (error: Error) => void): Promise<T> {
  try {
    await q.query('BEGIN')
    const result = await fn(q)
    await q.query('COMMIT')
    return result
  } catch (error) {
    await q.query('ROLLBACK').catch(onBroken)
    throw error
  }
}
