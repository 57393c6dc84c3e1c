/**
 * Shared benchmark plumbing. Every measurement compares our code with a baseline measured in the
 * same run (these machines are shared and noisy), and is stored as
 * `{ name, unit, better, ours, baseline, ratio }` with `ratio = ours / baseline`.
 *
 * Smoke mode (`BENCH_SMOKE=1`, set by `npm run bench:smoke` / `npm run bench -- --smoke`) runs
 * every suite end to end at tiny sizes so a broken bench shows up in `npm test`: each suite picks
 * its sizes with {@link size} (or reads {@link smoke}), {@link compareMedian} and
 * {@link timeMedian} time one round without warm-up, and {@link Results} prints its rows marked
 * `(smoke)` but writes no results file. The suite's own correctness checks (a wrong result, a bomb
 * not stopped, an execution that does not complete) still fail it; no figure is judged.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { loadavg } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

export interface Measurement {
  name: string
  unit: string
  better: 'lower' | 'higher'
  ours: number
  baseline: number
  ratio: number
  /** What the issue asks for, in words (e.g. `ratio <= 1.5`). */
  target?: string
  /** What the baseline is. */
  baselineLabel?: string
  /** The machine's 1-minute load average when the figure was taken (2 cores, shared: see RESULTS.md). */
  load?: number
}

const resultsDir = join(dirname(fileURLToPath(import.meta.url)), 'results')

/** True in smoke mode: tiny sizes, one round, nothing recorded. */
export const smoke = process.env.BENCH_SMOKE === '1'

/** `full` normally, `tiny` in smoke mode: how every suite sizes its work. */
export function size<T>(full: T, tiny: T): T {
  return smoke ? tiny : full
}

/**
 * The filter given on the command line (`npm run bench -- vfs.grep`); empty matches everything. It
 * selects measurements whose name starts with it: `vfs.` selects `vfs.read.1kb` but not
 * `runjs.vfs.read.calls`, `runjs.vfs.read.1mb` selects it and `runjs.vfs.read.1mb.bare`.
 */
export const filter = process.argv.slice(2).find(a => !a.startsWith('-')) ?? ''

/** Whether the measurement `name` is selected by the filter (its name starts with the filter). */
export function wanted(name: string): boolean {
  return name.startsWith(filter)
}

/**
 * Whether the filter may select some measurement named `prefix…` (a group a suite sets up once:
 * `runjs.bomb` for `runjs.bomb.typed`, or all of them for `runjs`). Each measurement in the group is
 * still checked with {@link wanted}.
 */
export function wantedAny(prefix: string): boolean {
  return prefix.startsWith(filter) || filter.startsWith(prefix)
}

/** Median wall time in ms of `fn` over `rounds` runs after `warmup` runs. `setup` runs untimed before each. */
export async function timeMedian(
  fn: () => unknown | Promise<unknown>,
  { rounds = 5, warmup = 1, setup }: { rounds?: number; warmup?: number; setup?: () => unknown | Promise<unknown> } = {},
): Promise<number> {
  if (smoke) [rounds, warmup] = [1, 0]
  const times: number[] = []
  for (let i = 0; i < warmup + rounds; i++) {
    if (setup) await setup()
    const t0 = performance.now()
    await fn()
    const t = performance.now() - t0
    if (i >= warmup) times.push(t)
  }
  times.sort((a, b) => a - b)
  return times[Math.floor(times.length / 2)]
}

/** Interleaves ours and baseline round by round, so that load changes hit both alike. */
export async function compareMedian(
  ours: () => unknown | Promise<unknown>,
  baseline: () => unknown | Promise<unknown>,
  options: MedianOptions = {},
): Promise<{ ours: number; baseline: number }> {
  const [o, b] = await interleavedMedians([ours, baseline], options)
  return { ours: o, baseline: b }
}

/** Options of {@link compareMedian} and {@link interleavedMedians}. */
export interface MedianOptions {
  rounds?: number
  warmup?: number
  /** Runs untimed before each timed call. */
  setup?: () => unknown | Promise<unknown>
  /**
   * `'wall'` (default): elapsed time. `'cpu'`: this process's CPU time (user + system, every thread),
   * for work that never waits on I/O (the memory store): on a shared machine the wall clock of such
   * work counts the other processes' turns on the CPU, which hit ours and the baseline unevenly.
   */
  clock?: 'wall' | 'cpu'
}

const clocks = {
  wall: () => performance.now(),
  cpu: () => {
    const { user, system } = process.cpuUsage()
    return (user + system) / 1000
  },
}

/** Median time in ms of each of `fns`, run in turns round by round (ours and several baselines alike). */
export async function interleavedMedians(
  fns: ReadonlyArray<() => unknown | Promise<unknown>>,
  options: MedianOptions = {},
): Promise<number[]> {
  const times = fns.map((): number[] => [])
  let { rounds = 5, warmup = 1 } = options
  const { setup } = options
  const now = clocks[options.clock ?? 'wall']
  if (smoke) [rounds, warmup] = [1, 0]
  for (let i = 0; i < warmup + rounds; i++) {
    for (let f = 0; f < fns.length; f++) {
      if (setup) await setup()
      const t0 = now()
      await fns[f]()
      const t = now() - t0
      if (i >= warmup) times[f].push(t)
    }
  }
  return times.map(xs => xs.sort((x, y) => x - y)[Math.floor(xs.length / 2)])
}

/** A results file (`bench/results/<file>`), merged by measurement name so filtered runs keep the rest. */
export class Results {
  private readonly byName = new Map<string, Measurement>()
  constructor(private readonly file: string) {
    try {
      for (const m of JSON.parse(readFileSync(join(resultsDir, file), 'utf8')) as Measurement[]) this.byName.set(m.name, m)
    } catch {
      // First run: no file yet.
    }
  }

  add(m: Omit<Measurement, 'ratio' | 'load'>): Measurement {
    const full: Measurement = {
      ...m,
      ours: round(m.ours),
      baseline: round(m.baseline),
      ratio: round(m.ours / m.baseline),
      load: round(loadavg()[0]),
    }
    printRow(full)
    if (smoke) return full // smoke figures mean nothing: keep the recorded ones
    this.byName.set(full.name, full)
    this.save()
    return full
  }

  save(): void {
    if (smoke) return
    mkdirSync(resultsDir, { recursive: true })
    const all = [...this.byName.values()].sort((a, b) => a.name.localeCompare(b.name))
    writeFileSync(join(resultsDir, this.file), JSON.stringify(all, null, 2) + '\n')
  }
}

let headerPrinted = false
function printRow(m: Measurement): void {
  if (!headerPrinted) {
    if (smoke) console.log('(smoke: tiny sizes, one round; the figures below are not recorded)')
    console.log(
      `${'name'.padEnd(34)} ${'ours'.padStart(12)} ${'baseline'.padStart(12)} ${'ratio'.padStart(8)} ${'load'.padStart(6)}  unit (better)  target`,
    )
    headerPrinted = true
  }
  console.log(
    `${m.name.padEnd(34)} ${String(m.ours).padStart(12)} ${String(m.baseline).padStart(12)} ${m.ratio.toFixed(3).padStart(8)} ${String(m.load ?? '').padStart(6)}  ${m.unit} (${m.better})  ${m.target ?? ''}`,
  )
}

function round(x: number): number {
  return Math.abs(x) >= 100 ? Math.round(x * 10) / 10 : Math.round(x * 1000) / 1000
}
