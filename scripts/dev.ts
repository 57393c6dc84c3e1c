/**
 * `npm run dev`: the demo (demo/) with hot reload, and a local session host behind it, offline.
 *
 * The host is the edge Worker under `wrangler dev` (the D1 migrations applied first), or with
 * `--node` the Node host of `npm run serve` (PGlite in .agent-vfs/). Vite sends the API paths
 * (/sessions, /openapi.json, /ws, /d1) to it, so the demo's "Remote" mode works with the page's own
 * origin as its base URL, as it does when the Worker serves the built demo. Prints the URLs and a
 * token for the owner "dev"; "In this tab" mode needs neither. Ctrl-C stops everything.
 *
 * Env: PORT (demo, 5173; the next free one if taken), HOST_PORT (session host, 8787),
 * AGENT_VFS_JWT_SECRET (default: a random one per run), WRANGLER_PERSIST_TO.
 */
// First: refuses to run anything but the sources (scripts/source-only.ts).
import './source-only.js'
import { spawn, type ChildProcess } from 'node:child_process'
import { createServer } from 'vite'
import { mintToken } from 'agent-vfs/session'
import { envPort, orExit, parseCli } from './cli-options.js'
import { SOURCE_NODE_ARGS } from './from-source.js'
import { applyLocalMigrations, JWT_SECRET_BINDING, newDevSecret, root, startWranglerDev, stopGroup, wranglerEnv } from './wrangler-local.js'

const env = process.env
const cli = {
  command: 'npm run dev',
  options: { node: 'boolean' },
  usage: `usage: npm run dev [-- --node]     (--node: the Node host of npm run serve instead of the Worker)
env: PORT (demo, 5173), HOST_PORT (session host, 8787), AGENT_VFS_JWT_SECRET, WRANGLER_PERSIST_TO`,
} as const
const flags = orExit(() => parseCli(cli, process.argv.slice(2), env))
if (flags.help) {
  console.log(cli.usage)
  process.exit(0)
}
const node = flags.node === true
const hostPort = orExit(() => envPort(env, 'HOST_PORT', 8787))
const demoPort = orExit(() => envPort(env, 'PORT', 5173))
const secret = env[JWT_SECRET_BINDING] ?? newDevSecret()
if (secret.length < 32) {
  console.error(`${JWT_SECRET_BINDING} must be at least 32 characters`)
  process.exit(2)
}

/** Starts the session host; resolves with its URL and the process group to stop. */
async function startHost(): Promise<{ url: string; child: ChildProcess; label: string }> {
  if (node) {
    const child = spawn(process.execPath, [...SOURCE_NODE_ARGS, 'scripts/serve.ts'], {
      cwd: root,
      detached: true,
      stdio: ['ignore', 'inherit', 'inherit'],
      env: { ...wranglerEnv(), PORT: String(hostPort), [JWT_SECRET_BINDING]: secret },
    })
    const url = `http://127.0.0.1:${hostPort}`
    for (const start = Date.now(); ; await new Promise(r => setTimeout(r, 250))) {
      if (child.exitCode !== null) throw new Error(`the Node host exited (${child.exitCode}) before it was ready`)
      if (
        await fetch(`${url}/openapi.json`).then(
          r => r.ok,
          () => false,
        )
      )
        return { url, child, label: 'Node host (npm run serve)' }
      if (Date.now() - start > 120_000) throw new Error('the Node host did not answer within 120 s')
    }
  }
  const state = env.WRANGLER_PERSIST_TO ? { persistTo: env.WRANGLER_PERSIST_TO } : {}
  console.log('applying the D1 migrations to the local database (wrangler d1 migrations apply DB --local)')
  await applyLocalMigrations(state)
  const dev = startWranglerDev({ port: hostPort, secret, stdio: 'inherit', ...state })
  try {
    return { url: await dev.ready, child: dev.child, label: 'the Worker (wrangler dev)' }
  } catch (error) {
    await stopGroup(dev.child)
    throw error
  }
}

const host = await startHost().catch((error: Error) => {
  console.error(error.message)
  process.exit(1)
})
// If this process dies without its signal handlers, do not leave the host behind.
process.once('exit', () => {
  try {
    process.kill(-host.child.pid!, 'SIGKILL')
  } catch {
    // Already stopped.
  }
})

// vite.config.ts reads the host's address when it loads.
env.AGENT_VFS_DEV_HOST = host.url
const vite = await createServer({
  configFile: `${root}vite.config.ts`,
  server: { ...(env.PORT ? { port: demoPort } : {}) },
})
await vite.listen()
const demo = vite.resolvedUrls?.local[0] ?? `http://127.0.0.1:${vite.config.server.port}/`

let stopping = false
const stop = async (code: number) => {
  if (stopping) return
  stopping = true
  await vite.close().catch(() => undefined)
  await stopGroup(host.child)
  process.exit(code)
}
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => void stop(0))
host.child.once('exit', code => {
  if (stopping) return
  console.error(`the session host stopped (${code}); stopping the demo`)
  void stop(1)
})

console.log(`
  demo          ${demo}   (hot reload)
  session host  ${host.url}   (${host.label}; the demo proxies /sessions, /openapi.json, /ws, /d1 to it)

  "In this tab" mode runs everything in the page: nothing to enter.
  "Remote" mode: leave the base URL empty (this page's origin) or enter ${host.url}, and this token:
  dev token (owner "dev", 24 h): ${await mintToken(secret, 'dev')}
`)
