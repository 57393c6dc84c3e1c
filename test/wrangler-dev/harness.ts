/**
 * The edge Worker under a real `wrangler dev` on loopback, for Node tests and benchmarks: a free
 * port, a fresh `--persist-to` folder (removed on stop), the D1 migrations applied first unless
 * `migrate: false`, a random JWT secret, and a clean stop (the whole process group: wrangler,
 * esbuild, workerd).
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { mintToken } from '../../src/session/index.js'
import { applyLocalMigrations, newDevSecret, startWranglerDev, stopGroup } from '../../scripts/wrangler-local.js'

export interface WranglerDev {
  /** `http://127.0.0.1:<port>` */
  url: string
  /** The folder holding this server's D1 and Durable Object state. */
  persistTo: string
  /** The process group leader (wrangler); the group ends with {@link WranglerDev.stop}. */
  pid: number
  /** The JWT secret the Worker verifies tokens with. */
  secret: string
  /** A session token for `owner`, signed with this server's secret. */
  token(owner?: string): Promise<string>
  /** What wrangler printed so far. */
  output(): string
  /** Stops every process of the group, then removes the state folder. Safe to call twice. */
  stop(): Promise<void>
}

/** A port nothing listens on right now (the kernel's pick, released at once). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number }
      server.close(() => resolve(port))
    })
  })
}

export async function startWorker(
  options: { migrate?: boolean; assets?: string; vars?: Record<string, string> } = {},
): Promise<WranglerDev> {
  const persistTo = mkdtempSync(join(tmpdir(), 'agent-vfs-wrangler-dev-'))
  const secret = newDevSecret()
  const removeState = () => rmSync(persistTo, { recursive: true, force: true })
  try {
    if (options.migrate !== false) await applyLocalMigrations({ persistTo })
  } catch (error) {
    removeState()
    throw error
  }
  const dev = startWranglerDev({
    port: await freePort(),
    inspectorPort: await freePort(),
    secret,
    persistTo,
    ...(options.assets ? { assets: options.assets } : {}),
    ...(options.vars ? { vars: options.vars } : {}),
  })
  // A test process that dies before stop() must not leave workerd running.
  const killOnExit = () => {
    try {
      process.kill(-dev.child.pid!, 'SIGKILL')
    } catch {
      // Already stopped.
    }
  }
  process.once('exit', killOnExit)
  let stopped: Promise<void> | undefined
  const stop = () =>
    (stopped ??= stopGroup(dev.child).then(() => {
      process.off('exit', killOnExit)
      removeState()
    }))
  let url: string
  try {
    url = await dev.ready
  } catch (error) {
    await stop()
    throw error
  }
  return {
    url,
    persistTo,
    pid: dev.child.pid!,
    secret,
    token: (owner = 'dev') => mintToken(secret, owner),
    output: dev.output,
    stop,
  }
}

/** Command lines of live processes that mention `text` (Linux: reads /proc). */
export function processesMentioning(text: string): string[] {
  return readdirSync('/proc')
    .filter(p => /^\d+$/.test(p))
    .flatMap(p => {
      try {
        const cmd = readFileSync(`/proc/${p}/cmdline`, 'utf8').replace(/\0/g, ' ')
        return cmd.includes(text) ? [cmd] : []
      } catch {
        return []
      }
    })
}
