#!/usr/bin/env node
// Runs every bench/*.bench.ts in its own Node process (so one suite's memory does not skew the
// next), passing the filter: `npm run bench -- vfs.grep`. `--smoke` (npm run bench:smoke) runs
// every suite at tiny sizes with BENCH_SMOKE=1 (see bench/harness.ts): nothing recorded, the
// README left alone, exit 1 if any suite fails.
import { spawnSync } from 'node:child_process'
import { readdirSync } from 'node:fs'

const smoke = process.argv.includes('--smoke')
const args = process.argv.slice(2).filter((a) => a !== '--smoke')
const env = smoke ? { ...process.env, BENCH_SMOKE: '1' } : process.env
const suites = readdirSync(new URL('../bench/', import.meta.url)).filter((f) => f.endsWith('.bench.ts')).sort()
let failed = 0
for (const suite of suites) {
  console.log(`\n# bench/${suite}`)
  const r = spawnSync(process.execPath, ['--import', 'tsx', '--expose-gc', `bench/${suite}`, ...args], { stdio: 'inherit', env })
  if (r.status !== 0) {
    failed++
    console.log(`# bench/${suite} FAILED (exit ${r.status ?? r.signal})`)
  }
}
if (!smoke) spawnSync(process.execPath, ['scripts/bench-table.mjs'], { stdio: 'inherit' })
process.exit(failed ? 1 : 0)
