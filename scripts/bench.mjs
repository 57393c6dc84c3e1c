#!/usr/bin/env node
// Runs every bench/*.bench.ts in its own Node process (so one suite's memory does not skew the
// next), passing the filter: `npm run bench -- vfs.grep`.
import { spawnSync } from 'node:child_process'
import { readdirSync } from 'node:fs'

const args = process.argv.slice(2)
const suites = readdirSync(new URL('../bench/', import.meta.url)).filter((f) => f.endsWith('.bench.ts')).sort()
let failed = 0
for (const suite of suites) {
  console.log(`\n# bench/${suite}`)
  const r = spawnSync(process.execPath, ['--import', 'tsx', '--expose-gc', `bench/${suite}`, ...args], { stdio: 'inherit' })
  if (r.status !== 0) failed++
}
spawnSync(process.execPath, ['scripts/bench-table.mjs'], { stdio: 'inherit' })
process.exit(failed ? 1 : 0)
