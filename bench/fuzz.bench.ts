/**
 * The two-writer fuzz of the workspace (test/hostile/fuzz.ts) at length: many seeds, long
 * operation sequences, on the memory store and on PGlite. Any broken promise (a lost
 * acknowledged write, a stale batch that went through, a false conflict) fails the bench with the
 * seed and step to replay. `fuzz.two-writers.<store>` records the time per 1,000 operations
 * (checks and reopen verifications included) against one writer replaying the same seeds alone.
 * `--smoke` (or BENCH_SMOKE=1): tiny sizes, to prove the suite runs.
 */
import { PGlite } from '@electric-sql/pglite'
import { memoryStore, postgresStore, type VfsStore } from '../src/index.js'
import { runFuzz } from '../test/hostile/fuzz.js'
import { Results, wanted } from './harness.js'

const smoke = process.argv.includes('--smoke') || process.env.BENCH_SMOKE === '1'
const results = new Results('fuzz.json')

async function fuzz(name: string, store: () => Promise<VfsStore>, seeds: number, steps: number) {
  if (!wanted(name)) return
  let operations = 0
  let conflicts = 0
  let ours = 0
  let baseline = 0
  for (let seed = 1; seed <= seeds; seed++) {
    const t0 = performance.now()
    const report = await runFuzz({ store: await store(), seed: 10_000 + seed, steps })
    ours += performance.now() - t0
    operations += report.operations
    conflicts += report.conflicts
    const t1 = performance.now()
    await runFuzz({ store: await store(), seed: 10_000 + seed, steps, writers: 1 })
    baseline += performance.now() - t1
  }
  console.log(`${name}: ${seeds} seeds × ${steps} steps, ${operations} operations, ${conflicts} conflicts, all promises kept`)
  if (smoke) return // tiny sizes prove the suite runs; their figures are not recorded
  results.add({
    name,
    unit: 'ms per 1,000 operations',
    better: 'lower',
    ours: (ours * 1000) / operations,
    baseline: (baseline * 1000) / operations,
    target: 'no broken promise (fails otherwise)',
    baselineLabel: 'the same seeds with one writer',
  })
}

await fuzz('fuzz.two-writers.memory', async () => memoryStore(), smoke ? 2 : 40, smoke ? 100 : 3000)
if (!smoke && wanted('fuzz.two-writers.pglite')) {
  const db = await PGlite.create()
  let n = 0
  await fuzz(
    'fuzz.two-writers.pglite',
    async () => {
      const store = postgresStore({ client: db, table: `fuzz_${++n}` })
      await store.migrate()
      return store
    },
    2,
    400,
  )
  await db.close()
}
