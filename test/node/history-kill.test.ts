import { spawn } from 'node:child_process'
import { cpSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { PGlite } from '@electric-sql/pglite'
import pg from 'pg'
import { afterAll, describe, expect, it } from 'vitest'
import { openVfs, postgresStore, type SqlClient } from '../../src/index.js'
import { MERGE_OURS, MERGED } from './history-kill-merge.js'

// Kill -9 during a branch commit, during a merging branch commit (300 files merged three ways),
// during a revert (300 files, one commit each) and during a retention
// pass (gc: nothing the policy keeps may be lost): afterwards the
// workspace holds all of it or none of it, and history agrees with the entries (0 torn). The kills land
// at known points (history-kill-child.ts): before the commit, after each of several statements inside
// its transaction (from the first to the last, and for a pool after its COMMIT), and after the
// commit was acknowledged, which must have landed.
const child = new URL('./history-kill-child.ts', import.meta.url).pathname

/** Runs the child until it reaches `stopAt` (see the child), kills it there; resolves to what it printed. */
function runUntilKilled(args: string[], stopAt: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, ['--conditions=agent-vfs:source', '--import', 'tsx', child, ...args, String(stopAt)], {
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let out = ''
    let err = ''
    const reached = () => (stopAt === 0 ? /^ready$/m : stopAt < 0 ? /^done /m : /^at \d+/m).test(out)
    proc.stdout.on('data', d => {
      out += d
      if (reached() && !proc.killed) proc.kill('SIGKILL')
    })
    proc.stderr.on('data', d => (err += d))
    proc.on('error', reject)
    proc.on('exit', () => (reached() ? resolve(out) : reject(new Error(`the child ended before its stop (${stopAt}): ${out} ${err}`))))
  })
}

/**
 * Kills a child at each stop, checking the workspace after each; resolves to the outcomes. The
 * first round runs to the acknowledgement and counts the statements, which places the others.
 */
async function killRounds(
  round: (stopAt: number) => Promise<{ out: string; outcome: 'all' | 'none' }>,
  fractions: number[],
): Promise<Array<{ stopAt: number; outcome: 'all' | 'none' }>> {
  const first = await round(-1)
  expect(first.outcome, 'an acknowledged commit landed').toBe('all')
  const n = Number(/^done \w+ (\d+)/m.exec(first.out)![1])
  const stops = [...new Set([0, 1, ...fractions.map(f => Math.ceil(f * n)), n - 1, n])].filter(k => k >= 0 && k <= n)
  const outcomes = [{ stopAt: -1, outcome: first.outcome }]
  for (const stopAt of stops) outcomes.push({ stopAt, outcome: (await round(stopAt)).outcome })
  expect(outcomes.find(o => o.stopAt === 0)?.outcome).toBe('none')
  return outcomes
}

const report = (what: string, outcomes: Array<{ stopAt: number; outcome: string }>) =>
  console.log(
    `${what}: ${outcomes.filter(o => o.outcome === 'all').length} landed, ${outcomes.filter(o => o.outcome === 'none').length} not, 0 torn of ${outcomes.length} (${outcomes
      .map(o => `${o.stopAt < 0 ? 'after' : o.stopAt === 0 ? 'before' : `stmt ${o.stopAt}`}:${o.outcome}`)
      .join(' ')})`,
  )

async function checkWhole(client: SqlClient, scope: string, mode: string, out = ''): Promise<'all' | 'none'> {
  if (mode === 'gc') return checkCollected(client, scope, out)
  const store = postgresStore({ client })
  const vfs = await openVfs({ store, namespace: 'kill', scope, autoRefresh: false })
  const contents = new Set<string>()
  for (const p of await vfs.glob('/work/**'))
    if (mode === 'merge') contents.add(await vfs.readFile(p, 'utf8'))
    else contents.add((await vfs.readFile(p, 'utf8')).slice(0, 1))
  const files = (await vfs.glob('/work/**')).length
  // History agrees with the entries: every file's version is the last recorded change to it.
  for (const p of await vfs.glob('/work/**')) {
    const last = (await vfs.history({ path: p })).at(-1)?.changes.at(-1)
    expect(last?.versionAfter, p).toBe((await vfs.stat(p)).version)
  }
  await vfs.close()
  if (mode === 'branch') {
    expect(files).toBe(300)
    expect(contents.size, `torn: ${[...contents]}`).toBe(1)
    return contents.has('B') ? 'all' : 'none'
  }
  if (mode === 'merge') {
    expect(files).toBe(300)
    expect(contents.size, 'torn: some files merged, some not').toBe(1)
    expect([MERGED, MERGE_OURS]).toContain([...contents][0])
    return contents.has(MERGED) ? 'all' : 'none'
  }
  expect([0, 300]).toContain(files)
  expect([...contents].every(c => c === 'R')).toBe(true)
  return files === 0 ? 'all' : 'none'
}

/**
 * After a retention pass killed anywhere: every file holds its last round, every version the policy
 * keeps (the last 3 commits) rebuilds with its round's content, and the pass happened whole or not
 * at all ('all': the oldest round can no longer be rebuilt; 'none': it still can, whole).
 */
async function checkCollected(client: SqlClient, scope: string, out: string): Promise<'all' | 'none'> {
  const rounds = [...out.matchAll(/^round (\d+) (\d+)$/gm)].map(m => ({ round: Number(m[1]), version: Number(m[2]) }))
  expect(rounds).toHaveLength(10)
  const last = rounds.at(-1)!.version
  const vfs = await openVfs({ store: postgresStore({ client }), namespace: 'kill', scope, autoRefresh: false })
  try {
    const files = await vfs.glob('/work/**/*.txt')
    expect(files).toHaveLength(300)
    for (const p of files) expect(await vfs.readFile(p, 'utf8'), p).toBe('9'.repeat(200))
    for (const { round, version } of rounds.filter(r => r.version > last - 3)) {
      const then = await vfs.at(version)
      for (const p of files) expect(await then.readFile(p, 'utf8'), `${p} at ${version}`).toBe(String(round).repeat(200))
    }
    const oldest = await vfs.at(rounds[0]!.version).then(
      v => v,
      () => undefined,
    )
    if (!oldest) return 'all'
    for (const p of files) expect(await oldest.readFile(p, 'utf8'), `${p} at the oldest round`).toBe('0'.repeat(200))
    return 'none'
  } finally {
    await vfs.close()
  }
}

/** One migrated PGlite data dir, copied for each round (initdb costs seconds a round on a busy machine). */
let template: Promise<string> | undefined
const pgliteTemplate = () =>
  (template ??= (async () => {
    const dir = mkdtempSync(join(tmpdir(), 'history-kill-template-'))
    const db = await PGlite.create(dir)
    await postgresStore({ client: db }).migrate()
    await db.close()
    return dir
  })())
afterAll(async () => {
  if (template) rmSync(await template, { recursive: true, force: true })
})

describe('kill -9 during a branch commit, a merging commit, a revert and a retention pass: all or nothing', () => {
  it.each(['branch', 'revert', 'gc', 'merge'])(
    'PGlite (on disk), %s',
    async mode => {
      let i = 0
      const outcomes = await killRounds(async stopAt => {
        const dir = mkdtempSync(join(tmpdir(), 'history-kill-'))
        cpSync(await pgliteTemplate(), dir, { recursive: true })
        try {
          const scope = `s-${i++}`
          const out = await runUntilKilled(['pglite', dir, scope, mode], stopAt)
          const db = await PGlite.create(dir)
          const outcome = await checkWhole(db, scope, mode, out)
          await db.close()
          return { out, outcome }
        } finally {
          rmSync(dir, { recursive: true, force: true })
        }
      }, []) // PGlite rounds cost seconds each (a data dir opened twice): before, the first, the last two statements
      report(`pglite ${mode}`, outcomes)
    },
    900_000,
  )

  it.skipIf(!process.env.PG_URL).each(['branch', 'revert', 'gc', 'merge'])(
    'Postgres, %s',
    async mode => {
      const pool = new pg.Pool({ connectionString: process.env.PG_URL, max: 2 })
      let i = 0
      try {
        const outcomes = await killRounds(
          async stopAt => {
            const scope = `pg-${mode}-${Date.now().toString(36)}-${i++}`
            const out = await runUntilKilled(['postgres', process.env.PG_URL!, scope, mode], stopAt)
            return { out, outcome: await checkWhole(pool, scope, mode, out) }
          },
          [1 / 4, 1 / 2, 3 / 4],
        )
        report(`postgres ${mode}`, outcomes)
      } finally {
        await pool.end()
      }
    },
    900_000,
  )
})
