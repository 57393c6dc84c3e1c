import { PGlite } from '@electric-sql/pglite'
import pg from 'pg'
import { memoryStore, postgresStore } from '../../src/index.js'
import { describeAgentRuntime } from '../agent/runtime-suite.js'

// The agent runtime's shared suite in Node (the browser and workers projects run the same one):
// on the memory store, on PGlite, and on a real Postgres server through pg.Pool, where every
// "restart" reopens the workspace from the database.
describeAgentRuntime('node, memory store', async () => ({ store: memoryStore() }))

describeAgentRuntime('node, pglite store', async () => {
  const db = await PGlite.create()
  const store = postgresStore({ client: db })
  await store.migrate()
  return { store, cleanup: () => db.close() }
})

describeAgentRuntime('node, postgres store (pg.Pool)', async () => {
  if (!process.env.PG_URL) throw new Error('PG_URL is not set: run `npm test`, which starts a throw-away Postgres server')
  const pool = new pg.Pool({ connectionString: process.env.PG_URL, max: 4 })
  const store = postgresStore({ client: pool, table: 'agent_runtime' })
  await store.migrate()
  return { store, cleanup: () => pool.end() }
})
