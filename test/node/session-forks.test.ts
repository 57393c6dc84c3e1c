import { PGlite } from '@electric-sql/pglite'
import pg from 'pg'
import { afterAll, describe } from 'vitest'
import { postgresStore } from '../../src/index.js'
import { describeForkLifetimes } from '../session/fork-lifetimes.js'

// Forks that outlive their original, fork bytes in the owner's quota, and lost file notices logged
// again, on PGlite and on a real Postgres (CI always provides one: a missing server is a failure).
let db: PGlite | undefined
const url = process.env.PG_URL
if (!url) throw new Error('PG_URL is not set: run `scripts/postgres.sh start` and export the PG_URL it prints (npm test does both)')
const pool = new pg.Pool({ connectionString: url, max: 8 })
afterAll(async () => {
  await db?.close()
  await pool.end()
})

describe('fork lifetimes on PGlite', () => {
  describeForkLifetimes(async () => {
    if (!db) db = await PGlite.create()
    const s = postgresStore({ client: db })
    await s.migrate()
    return s
  })
})

describe('fork lifetimes on Postgres', () => {
  describeForkLifetimes(async () => {
    const s = postgresStore({ client: pool })
    await s.migrate()
    return s
  })
})
