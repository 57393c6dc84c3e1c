import { fileURLToPath } from 'node:url'
import { afterAll, describe, expect, it } from 'vitest'
import { runNpm, stopAllNpm } from '../shared/run-npm.js'

// The scripts a person starts, started as they are (npm run …, child processes): a wrong option, a
// wrong number or an unreachable database stops them at once with one clear line and exit code 2,
// never silence, a stack trace or Node's internal wording. A script that ignores what it was told
// keeps running: runNpm stops it after the timeout and the exit code is null.
const root = fileURLToPath(new URL('../..', import.meta.url))
const quick = { timeoutMs: 60_000 }
// Longer than runNpm's timeout, so a script that keeps running fails its test rather than outliving it.
const TEST_TIMEOUT = 240_000
afterAll(stopAllNpm)

/** The lines a script wrote to stderr, without npm's own lines (`npm warn …`, `npm error …`). */
function ownLines(stderr: string): string[] {
  return stderr.split('\n').filter(l => l.trim() !== '' && !/^npm (warn|error|ERR!)/.test(l))
}

function expectNoStack(text: string) {
  expect(text).not.toMatch(/\n\s+at .+:\d+:\d+\)?\n|ERR_SOCKET_BAD_PORT|RangeError|node:internal/)
}

describe('npm run serve', () => {
  it('refuses an unknown option after -- with the usage', { timeout: TEST_TIMEOUT }, async () => {
    const r = await runNpm(root, ['run', 'serve', '--', '--bogus'], quick)
    expect(r.code).toBe(2)
    expect(r.stderr).toMatch(/npm run serve: Unknown option '--bogus'/)
    expect(r.stderr).toMatch(/usage: npm run serve -- \[options\]/)
    expectNoStack(r.stderr)
  })

  it('refuses an option npm kept for itself (no --), saying where it goes', { timeout: TEST_TIMEOUT }, async () => {
    const unknown = await runNpm(root, ['run', 'serve', '--bogus'], quick)
    expect(unknown.code).toBe(2)
    expect(unknown.stderr).toMatch(
      /npm run serve: npm took --bogus as its own setting and did not pass it on: write npm run serve -- --bogus/,
    )
    const ours = await runNpm(root, ['run', 'serve', '--max-sessions=5'], quick)
    expect(ours.code).toBe(2)
    expect(ours.stderr).toMatch(/write npm run serve -- --max-sessions=5/)
  })

  it('checks PORT and its other numbers with messages of its own', { timeout: TEST_TIMEOUT }, async () => {
    const cases = [
      ['PORT', 'abc', /^PORT must be a whole number from 0 to 65535, got "abc"$/],
      ['PORT', '70000', /^PORT must be a whole number from 0 to 65535, got "70000"$/],
      ['LEASE_MS', 'soon', /^LEASE_MS must be a whole number from 100 to 3600000, got "soon"$/],
      ['MODEL_DELAY_MS', '-5', /^MODEL_DELAY_MS must be a whole number from 0 to 600000, got "-5"$/],
      ['AGENT_VFS_MAX_SESSIONS', 'lots', /^--max-sessions \/ AGENT_VFS_MAX_SESSIONS must be a whole number >= 0 \(or none\), got "lots"$/],
    ] as const
    // At once: each child spends its time loading the sources, not on this check.
    const runs = await Promise.all(
      cases.map(([name, value]) => runNpm(root, ['run', 'serve', '--silent'], { ...quick, env: { [name]: value } })),
    )
    for (const [i, [name, value, message]] of cases.entries()) {
      expect(runs[i]!.code, `${name}=${value}`).toBe(2)
      expect(ownLines(runs[i]!.stderr), `${name}=${value}`).toEqual([expect.stringMatching(message)])
    }
  })

  it('--help prints the usage and exits 0', { timeout: TEST_TIMEOUT }, async () => {
    const r = await runNpm(root, ['run', 'serve', '--silent', '--', '--help'], quick)
    expect(r.code).toBe(0)
    expect(r.stdout).toMatch(/usage: npm run serve -- \[options\][\s\S]*--execution-budget JSON/)
  })
})

describe('npm run dev and dev:worker', () => {
  it('refuse unknown options and bad ports before starting anything', { timeout: TEST_TIMEOUT }, async () => {
    const cases = [
      [['run', 'dev:worker', '--', '--bogus'], {}, /npm run dev:worker: Unknown option '--bogus'/],
      [['run', 'dev:worker'], { PORT: 'abc' }, /PORT must be a whole number from 0 to 65535, got "abc"/],
      [['run', 'dev', '--', '--nod'], {}, /npm run dev: Unknown option '--nod'[\s\S]*usage: npm run dev \[-- --node\]/],
      [['run', 'dev', '--node'], {}, /write npm run dev -- --node/],
      [['run', 'dev'], { HOST_PORT: '8787x' }, /HOST_PORT must be a whole number from 0 to 65535, got "8787x"/],
    ] as const
    const runs = await Promise.all(cases.map(([args, env]) => runNpm(root, [...args], { ...quick, env: { ...env } })))
    for (const [i, [args, , message]] of cases.entries()) {
      expect(runs[i]!.code, args.join(' ')).toBe(2)
      expect(runs[i]!.stderr, args.join(' ')).toMatch(message)
      expectNoStack(runs[i]!.stderr)
    }
  })
})

describe('npm start', () => {
  it('an unreachable Postgres in --store is one line and exit code 2, not a pg-pool stack', { timeout: TEST_TIMEOUT }, async () => {
    const r = await runNpm(root, ['start', '--silent', '--', '--store', 'postgres://agent:secret@127.0.0.1:1/jobs'], quick)
    expect(r.code).toBe(2)
    expect(ownLines(r.stderr)).toEqual([
      'cannot use Postgres at postgres://agent:***@127.0.0.1:1/jobs (--store): nothing listens there: start Postgres, or fix the host and port [ECONNREFUSED]. Use --store pglite:DIR (the default) to run without a server.',
    ])
  })
})
