import { PGlite } from '@electric-sql/pglite'
import { afterAll, describe, expect, it } from 'vitest'
import { memoryStore, postgresStore } from '../../src/index.js'
import { runHistoryFuzzSeeds } from '../hostile/history-fuzz.js'
import { expectHistoryFuzzExercised } from '../hostile/history-fuzz-totals.js'

// 200 fixed seeds on memory, and on PGlite with fewer steps (a failure names its seed and step).
// Real Postgres: history-fuzz-postgres.test.ts; IndexedDB, Durable Objects, D1: test/browser, test/workers.
describe('history fuzz: two writers, branches, commits, reverts and forks against a model of every version', () => {
  let started: Promise<PGlite> | undefined
  afterAll(async () => {
    if (started) await (await started).close()
  })

  it('memory store, seeds 1-200: 0 lost updates, 0 wrong rebuilds', async () => {
    const totals = await runHistoryFuzzSeeds({ store: () => memoryStore(), seeds: 200, steps: 60 })
    // The run must exercise what it is about: successes and conflicts of both kinds.
    expect(totals.branchCommits).toBeGreaterThan(100)
    expect(totals.branchConflicts).toBeGreaterThan(10)
    expect(totals.reverts).toBeGreaterThan(100)
    expect(totals.revertConflicts).toBeGreaterThan(10)
    expect(totals.rebuilds).toBeGreaterThan(4000)
    expectHistoryFuzzExercised(totals)
    console.log(`history fuzz totals over 200 seeds: ${JSON.stringify(totals)}`)
  }, 600_000)

  it('PGlite (Postgres), seeds 1-200 of 8 steps', async () => {
    const store = postgresStore({ client: await (started ??= PGlite.create()) })
    await store.migrate()
    expectHistoryFuzzExercised(await runHistoryFuzzSeeds({ store, seeds: 200, steps: 8 }))
  }, 300_000)
})
