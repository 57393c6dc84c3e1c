import { expect } from 'vitest'
import type { HistoryFuzzReport } from './history-fuzz.js'

/** A store's run of the history fuzz exercised every kind of round: none of its totals is 0 (the assertions of each store's test). */
export function expectHistoryFuzzExercised(totals: HistoryFuzzReport): void {
  for (const k of Object.keys(totals) as (keyof HistoryFuzzReport)[]) expect({ [k]: totals[k] }).not.toEqual({ [k]: 0 })
  console.log(`history fuzz totals: ${JSON.stringify(totals)}`)
}
