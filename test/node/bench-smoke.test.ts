import { spawn } from 'node:child_process'
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { expect, it } from 'vitest'

// `npm run bench` must not break unnoticed: every bench suite runs here at tiny sizes
// (`npm run bench:smoke`, BENCH_SMOKE=1, see bench/harness.ts). No figure is judged; a suite that
// throws (a wrong result, a bomb not stopped, an execution that does not complete) fails the test.
const root = fileURLToPath(new URL('../..', import.meta.url))

function resultsFiles(): Record<string, string> {
  const dir = join(root, 'bench', 'results')
  return Object.fromEntries(readdirSync(dir).map(f => [f, readFileSync(join(dir, f), 'utf8')]))
}

it('every bench suite runs in smoke mode and records nothing', async () => {
  const before = resultsFiles()
  const { code, output } = await new Promise<{ code: number | null; output: string }>((resolve, reject) => {
    const child = spawn(process.execPath, ['scripts/bench.mjs', '--smoke'], {
      cwd: root,
      env: { ...process.env, BENCH_SMOKE: undefined },
    })
    let output = ''
    child.stdout.on('data', d => (output += d))
    child.stderr.on('data', d => (output += d))
    child.on('error', reject)
    child.on('close', c => resolve({ code: c, output }))
  })
  const suites = readdirSync(join(root, 'bench')).filter(f => f.endsWith('.bench.ts'))
  for (const suite of suites) expect(output, `bench/${suite} did not run`).toContain(`# bench/${suite}`)
  expect(output.match(/^# bench\/.* FAILED.*$/gm) ?? [], output.slice(-4000)).toEqual([])
  expect(code, output.slice(-4000)).toBe(0)
  expect(resultsFiles()).toEqual(before)
}, 600_000)
