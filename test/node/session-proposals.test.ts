import { PGlite } from '@electric-sql/pglite'
import pg from 'pg'
import { afterAll, describe } from 'vitest'
import { memoryStore, postgresStore } from '../../src/index.js'
import { describeProposals } from '../session/proposals.js'

// One PGlite per file: a fresh instance costs seconds.
let db: PGlite | undefined
let pool: pg.Pool | undefined
afterAll(async () => {
  await db?.close()
  await pool?.end()
})

describe('propose → review → apply on memory', () => {
  const store = memoryStore()
  describeProposals(async () => store)
})

describe('propose → review → apply on PGlite', () => {
  describeProposals(async () => {
    if (!db) db = await PGlite.create()
    const s = postgresStore({ client: db })
    await s.migrate()
    return s
  })
})

describe.skipIf(!process.env.PG_URL)('propose → review → apply on Postgres', () => {
  describeProposals(async () => {
    pool ??= new pg.Pool({ connectionString: process.env.PG_URL, max: 4 })
    const s = postgresStore({ client: pool })
    await s.migrate()
    return s
  })
})
