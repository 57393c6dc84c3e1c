import { PGlite } from '@electric-sql/pglite'
import { afterAll, describe } from 'vitest'
import { memoryStore, postgresStore } from '../../src/index.js'
import { describeChangesHttp } from '../session/changes-http.js'

// One PGlite per file: a fresh instance costs seconds.
let db: PGlite | undefined
afterAll(async () => db?.close())

describe('history routes on memory', () => {
  const store = memoryStore()
  describeChangesHttp(async () => store)
})

describe('history routes on PGlite', () => {
  describeChangesHttp(async () => {
    if (!db) db = await PGlite.create()
    const s = postgresStore({ client: db })
    await s.migrate()
    return s
  })
})
