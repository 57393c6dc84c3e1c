import { PGlite } from '@electric-sql/pglite'
import { afterAll, describe, expect, it } from 'vitest'
import { memoryStore, postgresStore } from '../../src/index.js'
import { runHistoryFuzz } from '../hostile/history-fuzz.js'

// 200 fixed seeds on memory (a failure names its seed and step), a few on PGlite.
describe('history fuzz: two writers, branches, commits, reverts and forks against a model of every version', () => {
  let started: Promise<PGlite> | undefined
  afterAll(async () => {
    if (started) await (await started).close()
  })

  it('memory store, seeds 1-200: 0 lost updates, 0 wrong rebuilds', async () => {
    const totals = { branchCommits: 0, branchConflicts: 0, reverts: 0, revertConflicts: 0, rebuilds: 0 }
    for (let seed = 1; seed <= 200; seed++) {
      const r = await runHistoryFuzz({ store: memoryStore(), seed, steps: 60 })
      for (const k of Object.keys(totals) as (keyof typeof totals)[]) totals[k] += r[k]
    }
    // The run must exercise what it is about: successes and conflicts of both kinds.
    expect(totals.branchCommits).toBeGreaterThan(100)
    expect(totals.branchConflicts).toBeGreaterThan(10)
    expect(totals.reverts).toBeGreaterThan(100)
    expect(totals.revertConflicts).toBeGreaterThan(10)
    expect(totals.rebuilds).toBeGreaterThan(4000)
    console.log(`history fuzz totals over 200 seeds: ${JSON.stringify(totals)}`)
  }, 600_000)

  it('PGlite (Postgres), seeds 1-3', async () => {
    const store = postgresStore({ client: await (started ??= PGlite.create()) })
    await store.migrate()
    for (let seed = 1; seed <= 3; seed++) await runHistoryFuzz({ store, seed, steps: 40 })
  }, 300_000)
})
