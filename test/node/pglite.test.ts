import { PGlite } from '@electric-sql/pglite'
import { afterAll, describe, expect, it } from 'vitest'
import { openVfs, postgresStore } from '../../src/index.js'
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

describe('postgresStore: what a group commit sends', () => {
  it('a group commit is three statements in its transaction, history included: the version bump, the checks, one INSERT statement', async () => {
    const pglite = await db()
    const sent: string[] = []
    const counting = {
      query: (text: string, params?: unknown[]) => pglite.query(text, params),
      transaction: <T>(fn: (q: { query: typeof pglite.query }) => Promise<T>) =>
        pglite.transaction(tx =>
          fn({ query: ((text: string, params?: unknown[]) => (sent.push(text), tx.query(text, params))) as typeof pglite.query }),
        ),
    }
    const store = postgresStore({ client: counting })
    await store.migrate()
    const vfs = await openVfs({ store, namespace: 'statements', scope: `s-${Date.now().toString(36)}`, autoRefresh: false })
    await Promise.all(Array.from({ length: 50 }, (_, i) => vfs.writeFile(`/d/${i}.txt`, `first ${i}`)))
    sent.length = 0
    // Overwrites, a delete and a create in one group commit: 52 change rows and 51 before-images.
    await Promise.all([
      ...Array.from({ length: 50 }, (_, i) => vfs.writeFile(`/d/${i}.txt`, `second ${i}`)),
      vfs.deleteFile('/d/0.txt').catch(() => undefined),
      vfs.writeFile('/d/new.txt', 'new'),
    ])
    expect(sent.length, sent.map(s => s.slice(0, 40)).join('\n')).toBe(3)
    expect((await vfs.history()).at(-1)!.changes.length).toBeGreaterThanOrEqual(50)
  })
})
