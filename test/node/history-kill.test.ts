import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { PGlite } from '@electric-sql/pglite'
import pg from 'pg'
import { describe, expect, it } from 'vitest'
import { openVfs, postgresStore, type SqlClient } from '../../src/index.js'

// Kill -9 during a branch commit and during a revert (300 files, one commit each): afterwards the
// workspace holds all of it or none of it, and history agrees with the entries (0 torn).
const child = new URL('./history-kill-child.ts', import.meta.url).pathname
const ROUNDS = 4

function runUntilKilled(args: string[], delayMs: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, ['--conditions=agent-vfs:source', '--import', 'tsx', child, ...args], {
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let out = ''
    let err = ''
    proc.stdout.on('data', d => {
      out += d
      if (out.includes('ready') && !proc.killed) setTimeout(() => proc.kill('SIGKILL'), delayMs)
    })
    proc.stderr.on('data', d => (err += d))
    proc.on('error', reject)
    proc.on('exit', () => (out.includes('ready') ? resolve(out) : reject(new Error(`the child failed before ready: ${err}`))))
  })
}

async function checkWhole(client: SqlClient, scope: string, mode: string): Promise<'all' | 'none'> {
  const store = postgresStore({ client })
  const vfs = await openVfs({ store, namespace: 'kill', scope, autoRefresh: false })
  const contents = new Set<string>()
  for (const p of await vfs.glob('/work/**')) contents.add((await vfs.readFile(p, 'utf8')).slice(0, 1))
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
  expect([0, 300]).toContain(files)
  expect([...contents].every(c => c === 'R')).toBe(true)
  return files === 0 ? 'all' : 'none'
}

describe('kill -9 during a branch commit and a revert: all or nothing', () => {
  it.each(['branch', 'revert'])(
    'PGlite (on disk), %s',
    async mode => {
      const outcomes: string[] = []
      for (let round = 0; round < ROUNDS; round++) {
        const dir = mkdtempSync(join(tmpdir(), 'history-kill-'))
        try {
          const scope = `s-${round}`
          await runUntilKilled(['pglite', dir, scope, mode], round * 15)
          const db = await PGlite.create(dir)
          outcomes.push(await checkWhole(db, scope, mode))
          await db.close()
        } finally {
          rmSync(dir, { recursive: true, force: true })
        }
      }
      console.log(`pglite ${mode}: ${outcomes.join(' ')}`)
    },
    300_000,
  )

  it.skipIf(!process.env.PG_URL).each(['branch', 'revert'])(
    'Postgres, %s',
    async mode => {
      const outcomes: string[] = []
      const pool = new pg.Pool({ connectionString: process.env.PG_URL, max: 2 })
      try {
        for (let round = 0; round < ROUNDS * 2; round++) {
          const scope = `pg-${mode}-${Date.now().toString(36)}-${round}`
          await runUntilKilled(['postgres', process.env.PG_URL!, scope, mode], round * 4)
          outcomes.push(await checkWhole(pool, scope, mode))
        }
      } finally {
        await pool.end()
      }
      console.log(`postgres ${mode}: ${outcomes.join(' ')}`)
    },
    300_000,
  )
})
