import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { PGlite } from '@electric-sql/pglite'
import { afterAll, describe, expect, it } from 'vitest'
import { openVfs, postgresStore } from '../../src/index.js'

// Kill -9 in the middle of a long bash command line (300 files written, then a sleep): none of its
// writes are in the store afterwards. The same command line left to end lands all 300 (the control:
// the check can fail). bash-kill-child.ts runs the command on PGlite in a data directory.
const child = new URL('./bash-kill-child.ts', import.meta.url).pathname
const dirs: string[] = []
afterAll(() => dirs.forEach(d => rmSync(d, { recursive: true, force: true })))

function run(dataDir: string, sleepSeconds: number, killOn: RegExp | undefined): Promise<string> {
  return new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, ['--conditions=agent-vfs:source', '--import', 'tsx', child, dataDir, String(sleepSeconds)], {
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let out = ''
    let err = ''
    proc.stdout.on('data', d => {
      out += d
      if (killOn?.test(out) && !proc.killed) proc.kill('SIGKILL')
    })
    proc.stderr.on('data', d => (err += d))
    proc.on('error', reject)
    proc.on('exit', (code, signal) =>
      signal === 'SIGKILL' || code === 0 ? resolve(out) : reject(new Error(`child failed: ${out} ${err}`)),
    )
  })
}

async function filesIn(dataDir: string): Promise<number> {
  const db = await PGlite.create(dataDir)
  try {
    const vfs = await openVfs({ store: postgresStore({ client: db }), namespace: 'kill', scope: 'bash', autoRefresh: false })
    const n = (await vfs.glob('/work/**')).length
    await vfs.close()
    return n
  } finally {
    await db.close()
  }
}

// A child starts tsx and PGlite and makes 300 writes: 10 s on a quiet machine, over a minute at load 18.
const KILL_TEST_MS = 300_000

describe('bash killed with SIGKILL mid-command (PGlite)', () => {
  it(
    'a command line left to end lands its 300 files',
    async () => {
      const dir = mkdtempSync(join(tmpdir(), 'bash-kill-'))
      dirs.push(dir)
      const out = await run(dir, 0, undefined)
      expect(out).toMatch(/^done 0/m)
      expect(await filesIn(dir)).toBe(300)
    },
    KILL_TEST_MS,
  )

  it(
    'killed after its 300 writes were made, none of them is in the store',
    async () => {
      const dir = mkdtempSync(join(tmpdir(), 'bash-kill-'))
      dirs.push(dir)
      const out = await run(dir, 30, /^staged$/m)
      expect(out).toMatch(/^staged$/m)
      expect(out).not.toMatch(/^done/m)
      expect(await filesIn(dir)).toBe(0)
    },
    KILL_TEST_MS,
  )
})
