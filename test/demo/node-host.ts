import { spawn, type ChildProcess } from 'node:child_process'
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { root } from './serve-demo.js'
import { SOURCE_NODE_ARGS } from '../../scripts/from-source.js'

/**
 * A fresh PGlite data folder (initdb done, nothing else), made once per PGlite version in .tmp/ and
 * copied for every host: initdb in wasm is most of a host's start (1.5 s opening an existing folder,
 * 30 s creating one at load 13, past the 120 s start timeout under a CPU hog). The host migrates its
 * copy as it always does.
 */
async function pgliteTemplate(): Promise<string> {
  const { version } = JSON.parse(readFileSync(join(root, 'node_modules/@electric-sql/pglite/package.json'), 'utf8')) as { version: string }
  const template = join(root, '.tmp', `demo-pglite-${version}`)
  if (existsSync(join(template, 'PG_VERSION'))) return template
  mkdirSync(join(root, '.tmp'), { recursive: true })
  const making = `${template}.${process.pid}`
  const { PGlite } = await import('@electric-sql/pglite')
  const db = await PGlite.create(making)
  await db.close()
  // Renamed whole into place, so a folder that has PG_VERSION is a complete one.
  if (existsSync(template)) rmSync(making, { recursive: true, force: true })
  else renameSync(making, template)
  return template
}

/** A running `npm run serve` (the Node session host) with its dev token. */
export interface NodeHost {
  url: string
  token: string
  /** Everything the host printed, for failure messages. */
  log(): string
  stop(): Promise<void>
  /**
   * Stops the host (SIGTERM) and starts a new one on the same data folder and port: the sessions,
   * their pending questions and the dev token survive, as after a restart of `npm run serve`.
   */
  restart(): Promise<NodeHost>
}

/**
 * Starts scripts/serve.ts (the Node session host, as `npm run serve` does) in dev mode on a free
 * loopback port, with PGlite in a temp folder, and waits for its URL and dev token. `stop` sends
 * SIGTERM (the host stops cleanly), then removes the folder. `MODEL_DELAY_MS` slows each model
 * call so a test can act mid-run (reload, steer) without racing the run to its end.
 */
export async function startNodeHost(options: { modelDelayMs?: number } = {}): Promise<NodeHost> {
  const data = mkdtempSync(join(tmpdir(), 'agent-vfs-demo-host-'))
  // The folder scripts/serve.ts opens PGlite in (join(AGENT_VFS_DATA, 'sessions-pglite')).
  cpSync(await pgliteTemplate(), join(data, 'sessions-pglite'), { recursive: true })
  return launch(data, 0, options)
}

async function launch(data: string, port: number, options: { modelDelayMs?: number }): Promise<NodeHost> {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PORT: String(port),
    AGENT_VFS_DATA: data,
    MODEL_DELAY_MS: String(options.modelDelayMs ?? 0),
  }
  delete env.DATABASE_URL
  delete env.AGENT_VFS_JWT_SECRET
  delete env.OPENAI_BASE_URL
  delete env.OPENAI_MODEL
  const proc: ChildProcess = spawn(process.execPath, [...SOURCE_NODE_ARGS, 'scripts/serve.ts'], {
    cwd: root,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let log = ''
  proc.stdout!.on('data', d => (log += d))
  proc.stderr!.on('data', d => (log += d))
  const end = async () => {
    if (proc.exitCode === null && proc.signalCode === null) {
      const exited = new Promise(r => proc.once('exit', r))
      proc.kill('SIGTERM')
      const timer = setTimeout(() => proc.kill('SIGKILL'), 10_000)
      await exited
      clearTimeout(timer)
    }
  }
  const stop = async () => {
    await end()
    rmSync(data, { recursive: true, force: true })
  }
  try {
    const { url, token } = await new Promise<{ url: string; token: string }>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`the Node host did not start in 120 s:\n${log}`)), 120_000)
      const check = () => {
        const u = /on (http:\/\/127\.0\.0\.1:\d+) \(/.exec(log)
        const t = /dev token \(owner "dev", 24 h\): (\S+)/.exec(log)
        if (u && t) {
          clearTimeout(timer)
          resolve({ url: u[1], token: t[1] })
        }
      }
      proc.stdout!.on('data', check)
      proc.once('exit', code => {
        clearTimeout(timer)
        reject(new Error(`the Node host exited (${code}) before it started:\n${log}`))
      })
    })
    const restart = async () => {
      await end()
      return launch(data, Number(new URL(url).port), options)
    }
    return { url, token, log: () => log, stop, restart }
  } catch (error) {
    await stop()
    throw error
  }
}

const fileUrl = (host: NodeHost, id: string, path: string) => `${host.url}/sessions/${id}/file?path=${encodeURIComponent(path)}`

/** A write by another client of the API (a person, beside the page): PUT …/file, which must answer 201. */
export async function putFile(host: NodeHost, id: string, path: string, text: string): Promise<void> {
  const res = await fetch(fileUrl(host, id, path), { method: 'PUT', headers: { authorization: `Bearer ${host.token}` }, body: text })
  if (res.status !== 201) throw new Error(`PUT ${path}: ${res.status} ${await res.text()}`)
}

/** A file of a session's workspace as the host has it, or undefined when there is none. */
export async function readFile(host: NodeHost, id: string, path: string): Promise<string | undefined> {
  const res = await fetch(fileUrl(host, id, path), { headers: { authorization: `Bearer ${host.token}` } })
  if (res.status === 404) return undefined
  if (res.status !== 200) throw new Error(`GET ${path}: ${res.status} ${await res.text()}`)
  return res.text()
}
