import { env } from 'cloudflare:workers'
import { describe, it } from 'vitest'
import { d1Store } from '../../src/index.js'
import { runHistoryFuzzSeeds } from '../hostile/history-fuzz.js'
import { expectHistoryFuzzExercised } from '../hostile/history-fuzz-totals.js'
import { storeInsideDurableObject } from './durable-object-harness.js'

// In workerd: every call of the Durable Object store runs inside a real WorkspaceObject on its SQLite
// storage; D1 is the local D1 of wrangler.toml (apply-migrations.ts has applied the migrations).
describe('history fuzz in workerd: two writers, branches, commits, reverts and forks against a model of every version', () => {
  it('Durable Object storage, seeds 1-200 of 8 steps: 0 lost updates, 0 wrong rebuilds', async () => {
    expectHistoryFuzzExercised(await runHistoryFuzzSeeds({ store: storeInsideDurableObject('history-fuzz'), seeds: 200, steps: 8 }))
  }, 300_000)

  it('D1, seeds 1-200 of 8 steps: 0 lost updates, 0 wrong rebuilds', async () => {
    expectHistoryFuzzExercised(await runHistoryFuzzSeeds({ store: d1Store(env.DB), seeds: 200, steps: 8 }))
  }, 300_000)
})
