import { deleteDB } from 'idb'
import { afterAll, describe, it } from 'vitest'
import { indexedDbStore } from '../../src/index.js'
import { runHistoryFuzzSeeds } from '../hostile/history-fuzz.js'
import { expectHistoryFuzzExercised } from '../hostile/history-fuzz-totals.js'

describe('history fuzz on IndexedDB (Chromium): two writers, branches, commits, reverts and forks against a model of every version', () => {
  const dbName = `agent-vfs-test-history-fuzz-${crypto.randomUUID()}`
  const store = indexedDbStore({ dbName })
  afterAll(async () => {
    await store.close?.()
    await deleteDB(dbName)
  })

  it('seeds 1-200 of 8 steps: 0 lost updates, 0 wrong rebuilds', async () => {
    expectHistoryFuzzExercised(await runHistoryFuzzSeeds({ store, seeds: 200, steps: 8 }))
  }, 300_000)
})
