/**
 * Workspace writes and hydration on the SQL store (PGlite and a real Postgres) and on memory, each
 * measured side by side with a baseline in the same run:
 * - `vfs.write.concurrent.<store>`: 1,000 × 1 KB writes issued together (group commit) vs. a naive
 *   write-through store (one awaited store commit per file, one after another);
 * - `vfs.write.limit.<store>`: the same writes vs. ONE raw multi-row INSERT of the same rows;
 * - `vfs.write.sequential.<store>`: 1,000 awaited writeFile calls vs. the naive store;
 * - `vfs.hydrate.<store>`: openVfs of 10,000 files / 50 MB vs. a bare SELECT of the same rows.
 *
 * Run: `node --import tsx bench/vfs-sql.bench.ts [filter]`. Without PG_URL it starts a throw-away
 * server with scripts/postgres.sh (instance `bench`) and stops it afterwards.
 */
import { PGlite } from '@electric-sql/pglite'
import { execFileSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import pg from 'pg'
import { memoryStore, openVfs, postgresStore, type SqlClient, type StoreOp, type VfsStore } from '../src/index.js'
import { Results, compareMedian, size, wanted } from './harness.js'

const results = new Results('vfs.json')
const FILES = size(1000, 20)
const KB = 1024
const TABLE = 'bench_vfs' // dropped at the end, so a shared server is left as found
const payload = (i: number, size: number) => {
  const out = new Uint8Array(size)
  for (let j = 0; j < size; j++) out[j] = (i * 31 + j * 7) & 0xff
  return out
}
const small = Array.from({ length: FILES }, (_, i) => payload(i, KB))
let n = 0
const freshScope = () => `bench-${process.pid}-${++n}`
const gc = (globalThis as { gc?: () => void }).gc

/** The naive write-through store: every file is its own awaited commit. */
async function naiveWrites(store: VfsStore, scope: string): Promise<void> {
  for (let i = 0; i < FILES; i++) {
    const op: StoreOp = {
      op: 'put',
      path: `/f/${i}.txt`,
      kind: 'file',
      data: small[i],
      mtime: Date.now(),
      ctime: Date.now(),
      expectedVersion: null,
    }
    await store.commit('bench', scope, [op])
  }
}

/**
 * `storeOf()` gives the store of each round: the SQL stores keep one (scopes are rows on a server),
 * memory takes a fresh one, or every round's files and history stay on the heap and each GC marks
 * them all again (at round 60 the heap held 120,000 files and the ratio read 3 where it is 1.7).
 */
async function benchStore(name: string, storeOf: () => VfsStore, client?: SqlClient): Promise<void> {
  // Each round writes into a fresh scope; setup (untimed) opens the workspace the timed part fills.
  let scope = ''
  let store = storeOf()
  let vfs: Awaited<ReturnType<typeof openVfs>> | undefined
  // The memory store never waits on I/O: its figures are CPU time (see MedianOptions.clock), and
  // no GC is forced before a round there, since V8 finishes a forced collection on helper threads
  // during the next allocations and those would be charged to whichever side allocates more.
  const clock = name === 'memory' ? 'cpu' : 'wall'
  const setup = async () => {
    scope = freshScope()
    store = storeOf()
    vfs = await openVfs({ store, namespace: 'bench', scope, autoRefresh: false })
    if (clock === 'wall') gc?.()
  }
  const concurrent = () => Promise.all(small.map((d, i) => vfs!.writeFile(`/f/${i}.txt`, d)))
  // Steady state: warm-up rounds let the JIT compile both sides' hot paths before timing starts.
  // On memory a round costs a few ms, and on a busy machine the JIT's background compiles lag
  // (3 warm-up rounds gave 11-41x from run to run at load 18): many cheap rounds there.
  const rounds = name === 'pglite' ? 3 : name === 'memory' ? 31 : 7
  const warmup = name === 'pglite' ? 1 : name === 'memory' ? 30 : 3

  if (wanted(`vfs.write.concurrent.${name}`)) {
    const r = await compareMedian(concurrent, () => naiveWrites(store, scope), { setup, rounds, warmup, clock })
    const target = name === 'postgres' ? 'ratio <= 0.2' : name === 'pglite' ? 'ratio <= 0.33' : 'ratio <= 2'
    results.add({
      name: `vfs.write.concurrent.${name}`,
      unit: clock === 'cpu' ? 'ms CPU' : 'ms',
      better: 'lower',
      ...r,
      target,
      baselineLabel: '1,000 sequential awaited store commits, one file each',
    })
  }
  if (client && wanted(`vfs.write.limit.${name}`)) {
    await client.query(
      `CREATE TABLE IF NOT EXISTS ${TABLE}_raw (namespace text NOT NULL, scope text NOT NULL, path text NOT NULL, kind text NOT NULL, ` +
        `data bytea NOT NULL, version int8 NOT NULL, mtime float8 NOT NULL, ctime float8 NOT NULL, PRIMARY KEY (namespace, scope, path))`,
    )
    const rawInsert = async () => {
      const params: unknown[] = ['bench', scope, 1]
      const values: string[] = []
      for (let i = 0; i < FILES; i++) {
        const k = params.push(`/f/${i}.txt`, 'file', small[i], Date.now(), Date.now())
        values.push(`($1, $2, $${k - 4}, $${k - 3}, $${k - 2}, $3, $${k - 1}, $${k})`)
      }
      await client.query(
        `INSERT INTO ${TABLE}_raw (namespace, scope, path, kind, data, version, mtime, ctime) VALUES ${values.join(', ')}`,
        params,
      )
    }
    const r = await compareMedian(concurrent, rawInsert, { setup, rounds, warmup })
    results.add({
      name: `vfs.write.limit.${name}`,
      unit: 'ms',
      better: 'lower',
      ...r,
      target: 'ratio <= 1.5',
      baselineLabel: 'one raw multi-row INSERT of the same 1,000 rows',
    })
  }
  if (wanted(`vfs.write.sequential.${name}`)) {
    const sequential = async () => {
      for (let i = 0; i < FILES; i++) await vfs!.writeFile(`/f/${i}.txt`, small[i])
    }
    const r = await compareMedian(sequential, () => naiveWrites(store, scope), { setup, rounds, warmup, clock })
    results.add({
      name: `vfs.write.sequential.${name}`,
      unit: clock === 'cpu' ? 'ms CPU' : 'ms',
      better: 'lower',
      ...r,
      target: 'report only',
      baselineLabel: '1,000 sequential awaited store commits, one file each',
    })
  }
  if (client && wanted(`vfs.hydrate.${name}`)) {
    // 10,000 files of 5 KB (~50 MB), committed in batches of 1,000.
    const hydrateScope = freshScope()
    for (let b = 0; b < size(10, 2); b++) {
      const ops: StoreOp[] = Array.from({ length: size(1000, 10) }, (_, i) => ({
        op: 'put',
        path: `/h/${b}/${i}.bin`,
        kind: 'file',
        data: payload(b * 1000 + i, size(5 * KB, 64)),
        mtime: 1,
        ctime: 1,
        expectedVersion: null,
      }))
      await store.commit('bench', hydrateScope, ops)
    }
    const r = await compareMedian(
      async () => (await openVfs({ store, namespace: 'bench', scope: hydrateScope, autoRefresh: false })).usage(),
      () =>
        client.query(`SELECT path, kind, data, version, mtime, ctime FROM ${TABLE}_entries WHERE namespace = $1 AND scope = $2`, [
          'bench',
          hydrateScope,
        ]),
      { rounds, warmup: 1, setup: () => gc?.() },
    )
    results.add({
      name: `vfs.hydrate.${name}`,
      unit: 'ms',
      better: 'lower',
      ...r,
      target: 'ratio <= 2',
      baselineLabel: 'bare SELECT of the same 10,000 rows (50 MB)',
    })
  }
}

async function dropTables(client: SqlClient): Promise<void> {
  for (const t of ['raw', 'entries', 'scopes']) await client.query(`DROP TABLE IF EXISTS ${TABLE}_${t}`)
}

/** Whether the filter selects any measurement of this store (so its set-up is worth doing). */
const storeWanted = (store: string) =>
  ['vfs.write.concurrent', 'vfs.write.limit', 'vfs.write.sequential', 'vfs.hydrate'].some(m => wanted(`${m}.${store}`))

const root = fileURLToPath(new URL('..', import.meta.url))
let pgUrl = process.env.PG_URL
const ownServer = !pgUrl && storeWanted('postgres')
if (ownServer) {
  const out = execFileSync('bash', ['scripts/postgres.sh', 'start', 'bench'], { cwd: root, encoding: 'utf8' })
  pgUrl = /PG_URL=(\S+)/.exec(out)?.[1]
}
try {
  if (storeWanted('memory')) await benchStore('memory', () => memoryStore())
  // Postgres before PGlite: PGlite's wasm heap would otherwise weigh on the later measurements.
  if (storeWanted('postgres')) {
    if (!pgUrl) throw new Error('no Postgres: scripts/postgres.sh start did not print a PG_URL')
    const pool = new pg.Pool({ connectionString: pgUrl, max: 4 })
    try {
      await dropTables(pool)
      const store = postgresStore({ client: pool, table: TABLE })
      await store.migrate()
      await benchStore('postgres', () => store, pool)
      await dropTables(pool)
    } finally {
      await pool.end()
    }
  }
  if (storeWanted('pglite')) {
    const db = await PGlite.create()
    const store = postgresStore({ client: db, table: TABLE })
    await store.migrate()
    await benchStore('pglite', () => store, db)
    await db.close()
  }
} finally {
  if (ownServer) execFileSync('bash', ['scripts/postgres.sh', 'stop', 'bench'], { cwd: root, stdio: 'inherit' })
}
