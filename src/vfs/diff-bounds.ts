import type { DiffLimits } from './history-types.js'

/**
 * The bounds of a line diff. A Myers diff costs O(N·D) (lines × edits), and the `diff` package runs
 * it synchronously: two 8,000-line files whose every line differs took tens of seconds on the event
 * loop, freezing every other request of the host (issue 27). So each file's line diff stops at an
 * edit length and a time, the whole diff has a time budget, and the line diffs of a whole process
 * take turns in one lane that rests between turns as long as each ran: a request that arrives
 * meanwhile waits for about one file's diff, never for ten. Past a bound a file is listed with sizes and hashes and
 * says why it has no line diff.
 */
export const DIFF_LIMITS: Required<DiffLimits> = {
  /** Either side larger than this: no line diff (tokenising alone costs ~0.1 ms per KB). */
  maxBytes: 256 * 1024,
  /** Lines added + removed at most (the `diff` package's `maxEditLength`): the bound that holds without a clock. */
  maxEditLength: 1000,
  /** Milliseconds one file's line diff may run (the `diff` package's `timeout`), synchronously. */
  fileTimeoutMs: 50,
  /** Milliseconds all the line diffs of one diff may take together; files after it get no line diff. */
  budgetMs: 2000,
}

/** The bounds a diff runs with: the caller's, each capped at a sane maximum, defaults otherwise. */
export function diffLimits(given: DiffLimits = {}): Required<DiffLimits> {
  const pick = (value: number | undefined, fallback: number, max: number) =>
    value !== undefined && Number.isFinite(value) && value >= 0 ? Math.min(Math.floor(value), max) : fallback
  return {
    maxBytes: pick(given.maxBytes, DIFF_LIMITS.maxBytes, 16 << 20),
    maxEditLength: pick(given.maxEditLength, DIFF_LIMITS.maxEditLength, 100_000),
    fileTimeoutMs: pick(given.fileTimeoutMs, DIFF_LIMITS.fileTimeoutMs, 60_000),
    budgetMs: pick(given.budgetMs, DIFF_LIMITS.budgetMs, 600_000),
  }
}

/** Why a text file has no line diff, as a person reads it. */
export const OMITTED_MESSAGES = {
  size: 'too large to show line by line (over the size bound)',
  edits: 'too many changed lines to show line by line (over the edit-length bound)',
  time: 'too large to show line by line (the line diff ran out of time)',
  budget: 'not diffed line by line: this diff used up its time budget on earlier files',
} as const

let lane: Promise<unknown> = Promise.resolve()

/** A macrotask turn of `ms` (0: the next one): what lets the host read and answer other requests between two line diffs. */
const pause = (ms: number) => new Promise<void>(resolve => setTimeout(resolve, ms))

/**
 * Runs one synchronous line diff in the process-wide lane: concurrent diffs (ten requests for the
 * same worst case) take turns, and after each turn the lane rests as long as the turn ran, so other
 * work (a request needs several I/O turns to be answered) gets at least half of the event loop.
 */
export function inDiffLane<T>(work: () => T): Promise<T> {
  let ran = 0
  const run = lane
    .then(() => pause(0))
    .then(() => {
      const started = Date.now()
      try {
        return work()
      } finally {
        ran = Date.now() - started
      }
    })
  lane = run.catch(() => undefined).then(() => pause(ran))
  return run
}
