// agent-vfs/bash on Node: the shared suite on the memory store and on PGlite (test/bash/suite.ts).
import { PGlite } from '@electric-sql/pglite'
import { afterAll } from 'vitest'
import { memoryStore, postgresStore, type VfsStore } from 'agent-vfs'
import { bashSuite } from '../bash/suite.js'

const memory = memoryStore()
bashSuite('the memory store (Node)', { store: () => memory })

// One PGlite instance for the file (starting one costs seconds).
let started: Promise<PGlite> | undefined
let store: Promise<VfsStore> | undefined
const pglite = () =>
  (store ??= (async () => {
    const s = postgresStore({ client: await (started ??= PGlite.create()) })
    await s.migrate()
    return s
  })())
bashSuite('PGlite (Node)', { store: pglite })
afterAll(async () => (await started)?.close())
