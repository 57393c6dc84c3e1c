import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { expect, it } from 'vitest'

it('npm run serve in dev mode: PGlite in a folder, 127.0.0.1, a printed token that works; SIGTERM stops it', async () => {
  const data = mkdtempSync(join(tmpdir(), 'agent-vfs-serve-'))
  const env: NodeJS.ProcessEnv = { ...process.env, PORT: '0', AGENT_VFS_DATA: data }
  delete env.DATABASE_URL
  delete env.AGENT_VFS_JWT_SECRET
  const proc = spawn(process.execPath, ['--import', 'tsx', 'scripts/serve.ts'], { env, stdio: ['ignore', 'pipe', 'pipe'] })
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
      proc.stderr!.on('data', (d) => (log += d))
    })
    expect((await fetch(`${url}/sessions`)).status).toBe(401)
    const created = await fetch(`${url}/sessions`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify({ profile: 'appendix', title: 'dev' }) })
    expect(created.status).toBe(201)
    expect(((await created.json()) as { owner: string }).owner).toBe('dev')
    const listed = (await (await fetch(`${url}/sessions`, { headers: { authorization: `Bearer ${token}` } })).json()) as { items: unknown[] }
    expect(listed.items).toHaveLength(1)
    const exit = new Promise<number | null>((r) => proc.once('exit', r))
    proc.kill('SIGTERM')
    expect(await exit).toBe(0)
  } finally {
    proc.kill('SIGKILL')
    rmSync(data, { recursive: true, force: true })
  }
}, 120_000)
