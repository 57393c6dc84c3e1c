import { PGlite } from '@electric-sql/pglite'
import { afterAll } from 'vitest'
import { memoryStore, postgresStore } from '../../src/index.js'
import { describeHostileWorkspace } from '../hostile/workspace.js'

describeHostileWorkspace('memory (node)', async () => ({ store: memoryStore() }))

// Starting PGlite costs seconds: one in-memory instance serves this whole file.
let started: Promise<PGlite> | undefined
afterAll(async () => {
  if (started) await (await started).close()
})
describeHostileWorkspace('pglite', async () => {
  const store = postgresStore({ client: await (started ??= PGlite.create()) })
  await store.migrate()
  return { store }
})
