import { PGlite } from '@electric-sql/pglite'
import { afterAll, describe } from 'vitest'
import { postgresStore } from '../../src/index.js'
import { describeDurability } from '../session/durability.js'
import { describeIntent } from '../session/intent.js'
import { describeLifecycle } from '../session/lifecycle.js'
import { describeFileEvents } from '../session/file-events.js'

// One PGlite per file: a fresh instance costs seconds.
let db: PGlite | undefined
const store = async () => {
  if (!db) db = await PGlite.create()
  const s = postgresStore({ client: db })
  await s.migrate()
  return s
}
afterAll(async () => db?.close())

describe('session host on PGlite', () => {
  describeLifecycle(store)
  describeDurability(store)
  describeIntent(store)
  describeFileEvents(store)
})
