#!/usr/bin/env node
// Runs every bench/*.bench.ts in its own Node process (so one suite's memory does not skew the
// next), passing the filter: `npm run bench -- vfs.grep`. `--smoke` (npm run bench:smoke) runs
// every suite at tiny sizes with BENCH_SMOKE=1 (see bench/harness.ts): nothing recorded, the
// README left alone, exit 1 if any suite fails. `--suite=<file>` runs one suite.
//
// Suites that need Postgres (bench/session.bench.ts) get one: without PG_URL, a throw-away server
// is started (`scripts/postgres.sh start bench`, as scripts/test.sh does for the tests) and
// stopped at the end, so `npm run bench` works on a fresh clone.
import { spawnSync } from 'node:child_process'
import { readdirSync, readFileSync } from 'node:fs'

const smoke = process.argv.includes('--smoke')
// `--suite=<file>.bench.ts` runs that suite alone (the smoke test runs each suite as its own test).
const only = process.argv.find(a => a.startsWith('--suite='))?.slice('--suite='.length)
const args = process.argv.slice(2).filter(a => a !== '--smoke' && !a.startsWith('--suite='))
const env = smoke ? { ...process.env, BENCH_SMOKE: '1' } : { ...process.env }
let startedPostgres = false
if (!env.PG_URL) {
  const started = spawnSync('bash', ['scripts/postgres.sh', 'start', 'bench'], {
    stdio: ['ignore', 'pipe', 'inherit'],
    encoding: 'utf8',
  })
  const url = /PG_URL=(\S+)/.exec(readFileSafe('.tmp/postgres-bench.env') ?? started.stdout ?? '')?.[1]
  if (started.status === 0 && url) {
    env.PG_URL = url.replace(/^['"]|['"]$/g, '')
    startedPostgres = true
  } else console.log('# could not start Postgres (scripts/postgres.sh start bench): suites that need it will fail')
}
function readFileSafe(path) {
  try {
    return readFileSync(path, 'utf8')
  } catch {
    return undefined
  }
}
const suites = readdirSync(new URL('../bench/', import.meta.url))
  .filter(f => f.endsWith('.bench.ts') && (!only || f === only))
  .sort()
if (only && !suites.length) {
  console.log(`# no suite bench/${only}`)
  process.exit(1)
}
let failed = 0
for (const suite of suites) {
  console.log(`\n# bench/${suite}`)
  // The source condition: `agent-vfs` (and every entry the benches import by name) means src/, one core.
  const r = spawnSync(process.execPath, ['--conditions=agent-vfs:source', '--import', 'tsx', '--expose-gc', `bench/${suite}`, ...args], {
    stdio: 'inherit',
    env,
  })
  if (r.status !== 0) {
    failed++
    console.log(`# bench/${suite} FAILED (exit ${r.status ?? r.signal})`)
  }
}
if (!smoke && !only) spawnSync(process.execPath, ['scripts/bench-table.mjs'], { stdio: 'inherit' })
if (startedPostgres) spawnSync('bash', ['scripts/postgres.sh', 'stop', 'bench'], { stdio: 'ignore' })
process.exit(failed ? 1 : 0)
