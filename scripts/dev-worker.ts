/**
 * `npm run dev:worker`: the edge Worker (wrangler.toml) under `wrangler dev` on 127.0.0.1, offline.
 * Applies the D1 migrations to the local database first (a fresh clone has none), then prints the
 * URL and a token for the owner "dev", as `npm run serve` does for the Node host.
 *
 * Env: PORT (8787); AGENT_VFS_JWT_SECRET (at least 32 characters; without it a random secret is made
 * for this run, so tokens from an earlier run stop working); WRANGLER_PERSIST_TO (local state,
 * default .wrangler/state). Ctrl-C stops wrangler and its workerd processes.
 */
// First: refuses to run anything but the sources (scripts/source-only.ts).
import './source-only.js'
import { mintToken } from 'agent-vfs/session'
import { envPort, orExit, parseCli } from './cli-options.js'
import { applyLocalMigrations, JWT_SECRET_BINDING, newDevSecret, startWranglerDev, stopGroup } from './wrangler-local.js'

const env = process.env
const cli = {
  command: 'npm run dev:worker',
  options: {},
  usage: 'usage: npm run dev:worker     (no options; env: PORT (8787), AGENT_VFS_JWT_SECRET, WRANGLER_PERSIST_TO)',
}
if (orExit(() => parseCli(cli, process.argv.slice(2), env)).help) {
  console.log(cli.usage)
  process.exit(0)
}
const port = orExit(() => envPort(env, 'PORT', 8787))
const secret = env[JWT_SECRET_BINDING] ?? newDevSecret()
if (secret.length < 32) {
  console.error(`${JWT_SECRET_BINDING} must be at least 32 characters`)
  process.exit(2)
}
const state = env.WRANGLER_PERSIST_TO ? { persistTo: env.WRANGLER_PERSIST_TO } : {}

console.log('applying the D1 migrations to the local database (wrangler d1 migrations apply DB --local)')
await applyLocalMigrations(state)
const dev = startWranglerDev({ port, secret, stdio: 'inherit', ...state })
// If this process dies without its signal handlers, do not leave workerd behind.
process.once('exit', () => {
  try {
    process.kill(-dev.child.pid!, 'SIGKILL')
  } catch {
    // Already stopped.
  }
})
let stopping = false
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, async () => {
    if (stopping) return
    stopping = true
    await stopGroup(dev.child)
    process.exit(0)
  })
}
dev.child.once('exit', code => {
  if (!stopping) process.exit(code ?? 1)
})

const url = await dev.ready.catch((error: Error) => {
  console.error(error.message)
  process.exit(1)
})
console.log(`agent-vfs Worker on ${url} (wrangler dev, local state in ${env.WRANGLER_PERSIST_TO ?? '.wrangler/state'})`)
console.log(`dev token (owner "dev", 24 h): ${await mintToken(secret, 'dev')}`)
