import { PGlite } from '@electric-sql/pglite'
import pg from 'pg'
import { afterAll } from 'vitest'
import { memoryStore, postgresStore } from '../../src/index.js'
import { describeHistoryQuota } from '../conformance/history-quota-suite.js'

// History's bytes against the workspace quota, and bounded collection, on memory, PGlite and Postgres.
let started: Promise<PGlite> | undefined
const pools: pg.Pool[] = []
afterAll(async () => {
  if (started) await (await started).close()
  await Promise.all(pools.map(p => p.end()))
})

describeHistoryQuota('memory', async () => ({ store: memoryStore() }))
describeHistoryQuota('pglite', async () => {
  const store = postgresStore({ client: await (started ??= PGlite.create()) })
  await store.migrate()
  return { store }
})
if (process.env.PG_URL)
  describeHistoryQuota('postgres', async () => {
    const pool = new pg.Pool({ connectionString: process.env.PG_URL, max: 4 })
    pools.push(pool)
    const store = postgresStore({ client: pool })
    await store.migrate()
    return { store }
  })
