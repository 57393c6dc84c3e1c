import { PGlite } from '@electric-sql/pglite'
import { afterAll } from 'vitest'
import { postgresStore } from '../../src/index.js'
import { describeStoreConformance } from '../conformance/store-suite.js'
import { describeVfsDurability } from '../conformance/vfs-suite.js'
import { describeHistory } from '../conformance/history-suite.js'
import { describeSqlStoreExtras } from './sql-store-extras.js'

// Starting PGlite costs seconds (wasm + initdb): one in-memory instance serves this whole file.
let started: Promise<PGlite> | undefined
const db = () => (started ??= PGlite.create())
afterAll(async () => {
  if (started) await (await started).close()
})

const harness = async () => {
  const store = postgresStore({ client: await db() })
  await store.migrate()
  return { store }
}

describeStoreConformance('pglite', harness)
describeVfsDurability('pglite', harness)
describeHistory('pglite', harness)
describeSqlStoreExtras('pglite', db)
