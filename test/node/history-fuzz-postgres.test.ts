import pg from 'pg'
import { afterAll, describe, it } from 'vitest'
import { postgresStore } from '../../src/index.js'
import { runHistoryFuzzSeeds } from '../hostile/history-fuzz.js'
import { expectHistoryFuzzExercised } from '../hostile/history-fuzz-totals.js'

// CI always provides a server; a missing one is a failure, never a silent skip.
const url = process.env.PG_URL
if (!url) throw new Error('PG_URL is not set: run `scripts/postgres.sh start` and export the PG_URL it prints (npm test does both)')

describe('history fuzz on real Postgres: two writers, branches, commits, reverts and forks against a model of every version', () => {
  const pool = new pg.Pool({ connectionString: url, max: 4 })
  afterAll(() => pool.end())

  it('seeds 1-200 of 8 steps: 0 lost updates, 0 wrong rebuilds', async () => {
    const store = postgresStore({ client: pool })
    await store.migrate()
    expectHistoryFuzzExercised(await runHistoryFuzzSeeds({ store, seeds: 200, steps: 8 }))
  }, 300_000)
})
