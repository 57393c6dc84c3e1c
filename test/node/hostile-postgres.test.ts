import pg from 'pg'
import { afterAll } from 'vitest'
import { postgresStore } from '../../src/index.js'
import { describeHostileWorkspace } from '../hostile/workspace.js'

// CI always provides a server; a missing one is a failure, never a silent skip.
const url = process.env.PG_URL
if (!url) throw new Error('PG_URL is not set: run `scripts/postgres.sh start` and export the PG_URL it prints (npm test does both)')
const pool = new pg.Pool({ connectionString: url, max: 4 })
const readPool = new pg.Pool({ connectionString: url, max: 2 })
afterAll(() => Promise.all([pool.end(), readPool.end()]))

describeHostileWorkspace('postgres via pg.Pool', async () => {
  const store = postgresStore({ client: pool })
  await store.migrate()
  return { store }
})

describeHostileWorkspace('postgres via pg.Pool, reads on a second pool', async () => {
  const store = postgresStore({ client: pool, reads: readPool })
  await store.migrate()
  return { store }
})
