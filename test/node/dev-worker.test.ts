import { spawn } from 'node:child_process'
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { expect, it } from 'vitest'
import { freePort, processesMentioning } from '../wrangler-dev/harness.js'
import { SOURCE_NODE_ARGS } from '../../scripts/from-source.js'

it('npm run dev:worker on fresh local state: migrates D1, prints the URL and a working dev token; SIGTERM stops every process', async () => {
  const state = join(mkdtempSync(join(tmpdir(), 'agent-vfs-dev-worker-')), 'state') // does not exist yet, as on a fresh clone
  const port = await freePort()
  const env: NodeJS.ProcessEnv = { ...process.env, PORT: String(port), WRANGLER_PERSIST_TO: state }
  delete env.AGENT_VFS_JWT_SECRET
  const proc = spawn(process.execPath, [...SOURCE_NODE_ARGS, 'scripts/dev-worker.ts'], { env, stdio: ['ignore', 'pipe', 'pipe'] })
  try {
    let log = ''
    const { url, token } = await new Promise<{ url: string; token: string }>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no start: ${log}`)), 180_000)
      const onData = (d: Buffer) => {
        log += d
        const u = /agent-vfs Worker on (http:\/\/127\.0\.0\.1:\d+) \(wrangler dev, local state in (.+?)\)/.exec(log)
        const t = /dev token \(owner "dev", 24 h\): (\S+)/.exec(log)
        if (u && t) {
          clearTimeout(timer)
          expect(u[2]).toBe(state)
          resolve({ url: u[1], token: t[1] })
        }
      }
      proc.stdout!.on('data', onData)
      proc.stderr!.on('data', d => (log += d))
      proc.once('exit', code => reject(new Error(`exited (${code}): ${log}`)))
    })
    expect(url).toBe(`http://127.0.0.1:${port}`)
    expect(existsSync(state)).toBe(true)
    // The migration ran: the D1 routes have their tables.
    const put = await fetch(`${url}/d1/dev/file/a.md`, { method: 'PUT', body: 'hi' })
    expect(put.status, await put.clone().text()).toBe(200)
    // The token is signed with the secret the Worker got.
    expect((await fetch(`${url}/sessions`)).status).toBe(401)
    const auth = { authorization: `Bearer ${token}`, 'content-type': 'application/json' }
    // The session index is migrated too, and the script-appendix profiles are there.
    for (const profile of ['appendix', 'appendix-asking']) {
      const created = await fetch(`${url}/sessions`, { method: 'POST', headers: auth, body: JSON.stringify({ profile }) })
      expect(created.status, await created.clone().text()).toBe(201)
    }
    const listed = await fetch(`${url}/sessions`, { headers: auth })
    expect(listed.status, await listed.clone().text()).toBe(200)
    expect(((await listed.json()) as { items: Array<{ owner: string }> }).items.map(s => s.owner)).toEqual(['dev', 'dev'])
    expect(processesMentioning(state).length).toBeGreaterThan(0)

    const exit = new Promise<number | null>(r => proc.once('exit', r))
    proc.kill('SIGTERM')
    expect(await exit).toBe(0)
    expect(processesMentioning(state)).toEqual([])
  } finally {
    // After a failure: stop it the way a user would (SIGTERM lets it stop wrangler's group), then make sure.
    if (proc.exitCode === null && proc.signalCode === null) {
      const exited = new Promise(r => proc.once('exit', r))
      proc.kill('SIGTERM')
      await Promise.race([exited, new Promise(r => setTimeout(r, 20_000))])
      proc.kill('SIGKILL')
    }
    rmSync(join(state, '..'), { recursive: true, force: true })
  }
}, 240_000)
