import pg from 'pg'
import { afterAll, describe } from 'vitest'
import { postgresStore } from '../../src/index.js'
import { describeDurability } from '../session/durability.js'
import { describeLifecycle } from '../session/lifecycle.js'

// CI always provides a server; a missing one is a failure, never a silent skip.
const url = process.env.PG_URL
if (!url) throw new Error('PG_URL is not set: run `scripts/postgres.sh start` and export the PG_URL it prints (npm test does both)')
const pool = new pg.Pool({ connectionString: url, max: 8 })
afterAll(() => pool.end())
const store = async () => {
  const s = postgresStore({ client: pool })
  await s.migrate()
  return s
}

describe('session host on Postgres', () => {
  describeLifecycle(store)
  describeDurability(store)
})
