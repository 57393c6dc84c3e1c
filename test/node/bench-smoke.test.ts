import { spawn } from 'node:child_process'
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'

// `npm run bench` must not break unnoticed: every bench suite runs here at tiny sizes
// (`npm run bench:smoke`, BENCH_SMOKE=1, see bench/harness.ts). No figure is judged; a suite that
// throws (a wrong result, a bomb not stopped, an execution that does not complete) fails the test.
const root = fileURLToPath(new URL('../..', import.meta.url))

function resultsFiles(): Record<string, string> {
  const dir = join(root, 'bench', 'results')
  return Object.fromEntries(readdirSync(dir).map(f => [f, readFileSync(join(dir, f), 'utf8')]))
}

const suites = readdirSync(join(root, 'bench')).filter(f => f.endsWith('.bench.ts'))

/** `scripts/bench.mjs --smoke` with `args`: its exit code and its output. */
function benchSmoke(args: string[]): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['scripts/bench.mjs', '--smoke', ...args], {
      cwd: root,
      env: { ...process.env, BENCH_SMOKE: undefined },
    })
    let output = ''
    child.stdout.on('data', d => (output += d))
    child.stderr.on('data', d => (output += d))
    child.on('error', reject)
    child.on('close', c => resolve({ code: c, output }))
  })
}

// One test per suite, each with its own child process and its own generous bound: the bound only
// catches a hang (a suite's speed is the benchmark's business), and on a loaded machine the suites
// together once took longer than any single bound should be.
describe.each(suites)('bench/%s', suite => {
  it('runs in smoke mode and records nothing', async () => {
    const before = resultsFiles()
    const { code, output } = await benchSmoke([`--suite=${suite}`])
    expect(output, `bench/${suite} did not run`).toContain(`# bench/${suite}`)
    expect(output.match(/^# bench\/.* FAILED.*$/gm) ?? [], output.slice(-4000)).toEqual([])
    expect(code, output.slice(-4000)).toBe(0)
    expect(resultsFiles()).toEqual(before)
  }, 600_000)
})

it('a suite name that does not exist fails (the per-suite runs cannot pass by running nothing)', async () => {
  const { code, output } = await benchSmoke(['--suite=no-such.bench.ts'])
  expect(code).toBe(1)
  expect(output).toContain('# no suite bench/no-such.bench.ts')
})
