import { PGlite } from '@electric-sql/pglite'
import { afterAll, describe, expect, it } from 'vitest'
import { memoryStore, postgresStore } from '../../src/index.js'
import { runFuzz } from '../hostile/fuzz.js'

// Fixed seeds: a failure names its seed and step and replays exactly. Longer runs: bench/fuzz.bench.ts.
describe('fuzz: two writers on one scope against a model of the tree', () => {
  let started: Promise<PGlite> | undefined
  afterAll(async () => {
    if (started) await (await started).close()
  })

  it.each([1, 2, 3])('memory store, seed %i', async seed => {
    const report = await runFuzz({ store: memoryStore(), seed, steps: 1500 })
    // The run must have exercised the cases it is about, not only happy paths.
    expect(report.conflicts).toBeGreaterThan(20)
    expect(report.succeeded).toBeGreaterThan(300)
    expect(report.refused).toBeGreaterThan(100)
  })

  it('PGlite (Postgres), seed 4', async () => {
    const store = postgresStore({ client: await (started ??= PGlite.create()) })
    await store.migrate()
    const report = await runFuzz({ store, seed: 4, steps: 150, verifyEvery: 30 })
    expect(report.conflicts).toBeGreaterThan(3)
    expect(report.succeeded).toBeGreaterThan(30)
  }, 120_000)
})
