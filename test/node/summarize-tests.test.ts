import { spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, expect, it } from 'vitest'

// scripts/summarize-tests.mjs prints the closing line of `npm test` ("N passed, N failed") that CI
// reads: a run that failed must never read as all passed.
const dir = mkdtempSync(join(tmpdir(), 'agent-vfs-summary-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const base = {
  numPassedTests: 0,
  numFailedTests: 0,
  numPendingTests: 0,
  numTodoTests: 0,
  testResults: [] as unknown[],
  success: true,
}
function summarize(...reports: object[]): { line: string; status: number | null } {
  const files = reports.map((r, i) => {
    const f = join(dir, `r${Math.random().toString(36).slice(2)}-${i}.json`)
    writeFileSync(f, JSON.stringify(r))
    return f
  })
  const run = spawnSync(process.execPath, ['scripts/summarize-tests.mjs', ...files], { encoding: 'utf8' })
  return { line: run.stdout.trim().split('\n').at(-1) ?? '', status: run.status }
}

it('counts passed and failed tests', () => {
  expect(summarize({ ...base, numPassedTests: 3, testResults: [{ status: 'passed', assertionResults: [] }] })).toEqual({
    line: '3 passed, 0 failed',
    status: 0,
  })
  expect(
    summarize({
      ...base,
      numPassedTests: 2,
      numFailedTests: 1,
      success: false,
      testResults: [{ status: 'failed', assertionResults: [{ status: 'failed' }] }],
    }),
  ).toEqual({ line: '2 passed, 1 failed', status: 1 })
})

it('a run that failed outside any test (a global setup that threw, an unhandled error) is one failure', () => {
  // What vitest writes when a project's globalSetup throws: no test ran, success false.
  expect(summarize({ ...base, success: false })).toEqual({ line: '0 passed, 1 failed', status: 1 })
  expect(summarize({ ...base, numPassedTests: 5, success: false, testResults: [{ status: 'passed', assertionResults: [] }] })).toEqual({
    line: '5 passed, 1 failed',
    status: 1,
  })
})
