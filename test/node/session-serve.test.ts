import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { expect, it } from 'vitest'
import { serveProcess } from '../shared/serve-process.js'
import { SOURCE_NODE_ARGS } from '../../scripts/from-source.js'

it('npm run serve in dev mode: PGlite in a folder, 127.0.0.1, a printed token that works; SIGTERM stops it', async () => {
  const data = mkdtempSync(join(tmpdir(), 'agent-vfs-serve-'))
  const env: NodeJS.ProcessEnv = { ...process.env, PORT: '0', AGENT_VFS_DATA: data }
  delete env.DATABASE_URL
  delete env.AGENT_VFS_JWT_SECRET
  const proc = spawn(process.execPath, [...SOURCE_NODE_ARGS, 'scripts/serve.ts'], { env, stdio: ['ignore', 'pipe', 'pipe'] })
  try {
    let log = ''
    const { url, token } = await new Promise<{ url: string; token: string }>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no start: ${log}`)), 90_000)
      const onData = (d: Buffer) => {
        log += d
        const u = /on (http:\/\/127\.0\.0\.1:\d+) \(PGlite in (.+?),/.exec(log)
        const t = /dev token \(owner "dev", 24 h\): (\S+)/.exec(log)
        if (u && t) {
          clearTimeout(timer)
          expect(u[2]).toBe(data)
          resolve({ url: u[1], token: t[1] })
        }
      }
      proc.stdout!.on('data', onData)
      proc.stderr!.on('data', d => (log += d))
    })
    expect((await fetch(`${url}/sessions`)).status).toBe(401)
    const created = await fetch(`${url}/sessions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ profile: 'appendix', title: 'dev' }),
    })
    expect(created.status).toBe(201)
    expect(((await created.json()) as { owner: string }).owner).toBe('dev')
    const listed = (await (await fetch(`${url}/sessions`, { headers: { authorization: `Bearer ${token}` } })).json()) as {
      items: unknown[]
    }
    expect(listed.items).toHaveLength(1)
    const exit = new Promise<number | null>(r => proc.once('exit', r))
    proc.kill('SIGTERM')
    expect(await exit).toBe(0)
  } finally {
    proc.kill('SIGKILL')
    rmSync(data, { recursive: true, force: true })
  }
}, 120_000)

it('npm run serve refuses a held data folder, a busy port and an unreachable Postgres with a message; dev tokens survive a restart', async () => {
  const data = mkdtempSync(join(tmpdir(), 'agent-vfs-serve-'))
  const other = mkdtempSync(join(tmpdir(), 'agent-vfs-serve-'))
  const base: NodeJS.ProcessEnv = { ...process.env, PORT: '0', AGENT_VFS_DATA: data }
  delete base.DATABASE_URL
  delete base.AGENT_VFS_JWT_SECRET
  const first = serveProcess(base)
  try {
    const { url, token } = (await first.ready)!
    expect(first.log()).toContain(`dev secret kept in ${join(data, 'dev-jwt-secret')}`)

    const second = serveProcess(base)
    expect(await second.exited).toBe(2)
    expect(second.log()).toMatch(new RegExp(`${data} is used by another server \\(pid ${first.proc.pid};`))
    expect(second.log()).not.toMatch(/PGlite in|\n\s+at /)

    const busy = serveProcess({ ...base, AGENT_VFS_DATA: other, PORT: new URL(url).port })
    expect(await busy.exited).toBe(2)
    expect(busy.log()).toMatch(new RegExp(`port ${new URL(url).port} on 127\\.0\\.0\\.1 is already in use .*PORT=`))
    expect(busy.log()).not.toMatch(/EADDRINUSE|\n\s+at /)

    const pg = serveProcess({ ...base, AGENT_VFS_DATA: other, DATABASE_URL: 'postgres://ana:hunter2@127.0.0.1:1/nowhere' })
    expect(await pg.exited).toBe(2)
    expect(pg.log()).toContain('cannot use Postgres at postgres://ana:***@127.0.0.1:1/nowhere (DATABASE_URL): nothing listens there')
    expect(pg.log()).not.toMatch(/hunter2|pg-pool|\n\s+at /)

    first.proc.kill('SIGTERM')
    expect(await first.exited).toBe(0)
    const again = serveProcess(base)
    try {
      const restarted = (await again.ready)!
      const listed = await fetch(`${restarted.url}/sessions`, { headers: { authorization: `Bearer ${token}` } })
      expect(listed.status).toBe(200)
    } finally {
      again.proc.kill('SIGTERM')
      await again.exited
    }
  } finally {
    first.proc.kill('SIGKILL')
    rmSync(data, { recursive: true, force: true })
    rmSync(other, { recursive: true, force: true })
  }
}, 300_000)

it('npm run serve collects history by itself: an owner at AGENT_VFS_MAX_BYTES writes again once the retention timer has run', async () => {
  const data = mkdtempSync(join(tmpdir(), 'agent-vfs-serve-retention-'))
  const env: NodeJS.ProcessEnv = { ...process.env, PORT: '0', AGENT_VFS_DATA: data, AGENT_VFS_MAX_BYTES: '4000000', LEASE_MS: '2000' }
  delete env.DATABASE_URL
  delete env.AGENT_VFS_JWT_SECRET
  const server = serveProcess(env)
  try {
    const started = await server.ready
    expect(started, server.log()).toBeDefined()
    const { url, token } = started!
    const headers = { authorization: `Bearer ${token}` }
    const created = await fetch(`${url}/sessions`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify({ profile: 'appendix', title: 'retention' }),
    })
    const { id } = (await created.json()) as { id: string }
    const put = (fill: number) =>
      fetch(`${url}/sessions/${id}/file?path=/work/big.bin`, { method: 'PUT', headers, body: new Uint8Array(1_000_000).fill(fill) })
    // Files and history count together: without retention the 4th PUT of 1 MB is 413 (as
    // session-history-quota.test.ts shows with no timer). With serve's own pass every LEASE_MS, either
    // PUTs keep fitting because passes run between them, or, after a 413, a later PUT fits again.
    // No request of ours frees anything; if the timer never ran, the PUT after the 413 never fits.
    const statuses: number[] = []
    for (let i = 0; i < 10 && statuses.at(-1) !== 413; i++) statuses.push((await put(i)).status)
    let status = statuses.at(-1)!
    for (let tries = 0; tries < 120 && status === 413; tries++) {
      await new Promise(r => setTimeout(r, 500))
      status = (await put(50 + tries)).status
    }
    expect(status, `statuses ${statuses}; ${server.log()}`).toBe(201)
  } finally {
    server.proc.kill('SIGKILL')
    await server.exited
    rmSync(data, { recursive: true, force: true })
  }
}, 180_000)
