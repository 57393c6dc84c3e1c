import pg from 'pg'
import { afterAll, describe, expect, it } from 'vitest'
import { isVfsError, openVfs, postgresStore } from '../../src/index.js'
import { describeStoreConformance } from '../conformance/store-suite.js'
import { describeVfsDurability } from '../conformance/vfs-suite.js'
import { describeHistory } from '../conformance/history-suite.js'
import { describeSqlStoreExtras } from './sql-store-extras.js'

// CI always provides a server; a missing one is a failure, never a silent skip.
const url = process.env.PG_URL
if (!url) throw new Error('PG_URL is not set: run `scripts/postgres.sh start` and export the PG_URL it prints (npm test does both)')

const pools: pg.Pool[] = []
const newPool = (max = 10) => {
  const pool = new pg.Pool({ connectionString: url, max })
  pools.push(pool)
  return pool
}
const shared = newPool()
afterAll(async () => {
  await Promise.all(pools.map(p => p.end()))
})

const migrated = async (client: pg.Pool | pg.Client) => {
  const store = postgresStore({ client })
  await store.migrate()
  return { store }
}

describeStoreConformance('postgres via pg.Pool', () => migrated(shared))
describeVfsDurability('postgres via pg.Pool', () => migrated(shared))
describeHistory('postgres via pg.Pool', () => migrated(shared))
// The same suites with the plain reads on a second pool (postgresStore's `reads`), as npm run serve runs.
const readPool = newPool(3)
const withReads = async () => {
  const store = postgresStore({ client: shared, reads: readPool })
  await store.migrate()
  return { store }
}
describeStoreConformance('postgres via pg.Pool, reads on a second pool', withReads)
describeVfsDurability('postgres via pg.Pool, reads on a second pool', withReads)
describeHistory('postgres via pg.Pool, reads on a second pool', withReads)
describeStoreConformance('postgres via one pg.Client', async () => {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  return { ...(await migrated(client)), cleanup: () => client.end() }
})
describeSqlStoreExtras('pg.Pool', async () => shared)

describe('postgresStore on pg.Pool', () => {
  it('two pools, two workspaces, one scope: stale writes get ECONFLICT', async () => {
    const [storeA, storeB] = [postgresStore({ client: newPool(2) }), postgresStore({ client: newPool(2) })]
    await storeA.migrate()
    const scope = `two-pools-${Date.now().toString(36)}`
    const a = await openVfs({ store: storeA, namespace: 'pools', scope, autoRefresh: false })
    const b = await openVfs({ store: storeB, namespace: 'pools', scope, autoRefresh: false })
    await Promise.all([a.writeFile('/a.txt', 'a'), b.writeFile('/b.txt', 'b')]) // different files: no conflict
    await b.writeFile('/shared.txt', 'b first')
    const stale = await a.writeFile('/shared.txt', 'a, unaware of b').catch(e => e)
    expect(isVfsError(stale, 'ECONFLICT'), String(stale)).toBe(true)
    const check = await openVfs({ store: storeA, namespace: 'pools', scope, autoRefresh: false })
    expect(await check.readFile('/shared.txt', 'utf8')).toBe('b first')
    expect(await check.readdir('/')).toEqual(['a.txt', 'b.txt', 'shared.txt'])
  })

  it('returns every connection to the pool, after conflicts and failures too', async () => {
    const pool = newPool(3)
    const store = postgresStore({ client: pool })
    await store.migrate()
    const scope = `pool-health-${Date.now().toString(36)}`
    const put = (expectedVersion: number | null) => ({
      op: 'put' as const,
      path: '/x',
      kind: 'file' as const,
      data: new Uint8Array([1]),
      mtime: 1,
      ctime: 1,
      expectedVersion,
    })
    await store.commit('pools', scope, [put(0)])
    for (let i = 0; i < 10; i++) {
      expect(isVfsError(await store.commit('pools', scope, [put(0)]).catch(e => e), 'ECONFLICT')).toBe(true)
      // A server-side error mid-transaction (23502: NOT NULL violated) rolls back and frees the connection.
      const bad = { ...put(null), kind: null as unknown as 'file' }
      await expect(store.commit('pools', scope, [bad])).rejects.toMatchObject({ code: '23502' })
    }
    expect(await store.commit('pools', scope, [put(1)])).toBe(2)
    expect(pool.waitingCount).toBe(0)
    expect(pool.idleCount).toBe(pool.totalCount)
  })
})
