/**
 * `npm run serve`: the session HTTP API on @hono/node-server, on 127.0.0.1.
 *
 * Store: Postgres from DATABASE_URL (several servers may share it: LISTEN/NOTIFY carries events
 * between them), else PGlite in .agent-vfs/ (AGENT_VFS_DATA to move it). Auth: HS256 JWTs signed
 * with AGENT_VFS_JWT_SECRET; without it the server runs in dev mode: it keeps a secret in the data
 * folder (so tokens survive restarts), mints a token for the owner "dev" and prints it. The port and
 * the data folder (a lock file) are checked before anything is opened: see scripts/serve/. Profiles: `appendix` (the script-appendix task; the
 * scripted model, or an OpenAI-compatible one when OPENAI_BASE_URL and OPENAI_MODEL are set) and
 * `appendix-asking` (asks a question and wants approval for run_js), `program-question` (one run_js program
 * that asks for a title from inside the program), `propose-notes` (its writes wait for approval as a diff).
 *
 * Env: PORT (8787), DATABASE_URL, AGENT_VFS_DATA, AGENT_VFS_JWT_SECRET, LEASE_MS (15000),
 * MODEL_DELAY_MS (0; slows every model call, to watch a run live), OPENAI_BASE_URL, OPENAI_API_KEY, OPENAI_MODEL.
 * --mcp-origins / AGENT_VFS_MCP_ORIGINS: browser origins that may call /sessions/{id}/mcp, comma-separated
 * (default none: a request with an Origin header is refused, 403; clients that are not browsers send none).
 *
 * Limits (docs/limits.md; a flag wins over its env variable; `none` or 0 lifts a quota):
 * --max-sessions / AGENT_VFS_MAX_SESSIONS (100 per owner), --max-bytes / AGENT_VFS_MAX_BYTES (1 GiB
 * per owner), --max-running / AGENT_VFS_MAX_RUNNING (4 executions per owner at once), --max-streams /
 * AGENT_VFS_MAX_STREAMS (50 per owner), --max-json-bytes / AGENT_VFS_MAX_JSON_BYTES (1 MiB),
 * --max-upload-bytes / AGENT_VFS_MAX_UPLOAD_BYTES (20 MiB), --run-js-threads / AGENT_VFS_RUN_JS_THREADS
 * (worker threads for run_js: the machine's parallelism, 1 to 8; `0` runs programs on the server's
 * own thread, which a busy program then blocks).
 *
 * Budgets (docs/usage-budgets.md; none by default): --execution-budget / AGENT_VFS_EXECUTION_BUDGET and
 * --owner-budget / AGENT_VFS_OWNER_BUDGET, each JSON such as '{"tokens":200000,"modelCalls":50}'.
 */
// First: refuses to run anything but the sources (scripts/source-only.ts).
import './source-only.js'
import { serve } from '@hono/node-server'
import { mkdirSync } from 'node:fs'
import { hostname } from 'node:os'
import { join, resolve } from 'node:path'
import { devSecret } from './serve/dev-secret.js'
import { lockDataFolder } from './serve/lock.js'
import { checkPortFree } from './serve/port.js'
import { describePostgresFailure } from './serve/postgres-error.js'
import { SERVE_CLI } from './serve/usage.js'
import { envInteger, envPort, orExit, parseCli } from './cli-options.js'
import { pacedProfile } from '../fixtures/script-appendix/paced.js'
import { programQuestionProfile } from '../fixtures/script-appendix/program-question.js'
import { proposeNotesProfile } from '../fixtures/script-appendix/propose-notes.js'
import { bashAppendixProfile, scriptAppendixProfile } from '../fixtures/script-appendix/profile.js'
import { DEMO_STREAM } from '../fixtures/script-appendix/stream.js'
import { postgresStore, type VfsStore } from 'agent-vfs'
import { createRunJs, type RunJsTool, type RunVfs } from 'agent-vfs'
import { workerThreads } from 'agent-vfs/run-js/node'
import { sessionMcp } from 'agent-vfs/mcp'
import { checkBudget, type Budget } from 'agent-vfs/agent'
import {
  createSessionApp,
  createSessionHost,
  DEFAULT_OWNER_QUOTA,
  mintToken,
  postgresSignals,
  type AgentProfile,
  type OwnerQuota,
  type SessionSignals,
} from 'agent-vfs/session'

const env = process.env
// Every option and number is checked before anything is opened: a wrong one stops with one line.
const flags = orExit(() => parseCli(SERVE_CLI, process.argv.slice(2), env))
if (flags.help) {
  console.log(SERVE_CLI.usage)
  process.exit(0)
}
const port = orExit(() => envPort(env, 'PORT', 8787))
const leaseMs = orExit(() => envInteger(env, 'LEASE_MS', 15_000, 100, 3_600_000))
const delay = orExit(() => envInteger(env, 'MODEL_DELAY_MS', 0, 0, 600_000))
const dataDir = resolve(env.AGENT_VFS_DATA ?? '.agent-vfs')

/** Refuses to start, with a message and exit code 2, instead of a stack trace. */
function refuse(message: string): never {
  console.error(message)
  process.exit(2)
}

/** A setting from `--name=value` / `--name value`, else the env variable; undefined when neither is set. */
function setting(flag: string, variable: string): string | undefined {
  const given = flags[flag]
  return typeof given === 'string' ? given : env[variable]
}

/** A whole number of at least 0 (`none` is 0), or the default; anything else stops the server with a message. */
function count(flag: string, variable: string, fallback: number | undefined): number | undefined {
  const raw = setting(flag, variable)
  if (raw === undefined || raw === '') return fallback
  const value = raw.trim().toLowerCase() === 'none' ? 0 : Number(raw)
  if (!Number.isSafeInteger(value) || value < 0) {
    console.error(`--${flag} / ${variable} must be a whole number >= 0 (or none), got ${JSON.stringify(raw)}`)
    process.exit(2)
  }
  return value
}

/** The owners' quotas: the defaults, each replaced by its flag or env variable; 0 lifts one. */
function quotaFromSettings(): OwnerQuota {
  const fields: Array<[keyof OwnerQuota, string, string]> = [
    ['maxSessions', 'max-sessions', 'AGENT_VFS_MAX_SESSIONS'],
    ['maxBytes', 'max-bytes', 'AGENT_VFS_MAX_BYTES'],
    ['maxRunningExecutions', 'max-running', 'AGENT_VFS_MAX_RUNNING'],
    ['maxStreams', 'max-streams', 'AGENT_VFS_MAX_STREAMS'],
  ]
  const quota: OwnerQuota = {}
  for (const [field, flag, variable] of fields) {
    const value = count(flag, variable, DEFAULT_OWNER_QUOTA[field])
    if (value) quota[field] = value
  }
  return quota
}

const quota = quotaFromSettings()

/** A budget from `--name` / its env variable, as JSON (`{"tokens":200000}`); undefined when unset. */
function budgetSetting(flag: string, variable: string): Budget | undefined {
  const text = setting(flag, variable)
  if (text === undefined || text === '') return undefined
  try {
    return checkBudget(JSON.parse(text), flag) ?? undefined
  } catch (error) {
    refuse(`--${flag} / ${variable} must be JSON such as '{"tokens":200000,"modelCalls":50}': ${(error as Error).message}`)
  }
}
const executionBudget = budgetSetting('execution-budget', 'AGENT_VFS_EXECUTION_BUDGET')
const ownerBudget = budgetSetting('owner-budget', 'AGENT_VFS_OWNER_BUDGET')
const maxJsonBytes = count('max-json-bytes', 'AGENT_VFS_MAX_JSON_BYTES', undefined) || undefined
const maxUploadBytes = count('max-upload-bytes', 'AGENT_VFS_MAX_UPLOAD_BYTES', undefined) || undefined
const threadCount = count('run-js-threads', 'AGENT_VFS_RUN_JS_THREADS', undefined)
// just-bash is an optional peer: the bash profile and MCP's bash tool are offered when it is installed.
const bashEntry = await import('agent-vfs/bash').catch(() => undefined)
const mcp = (() => {
  const origins = (setting('mcp-origins', 'AGENT_VFS_MCP_ORIGINS') ?? '')
    .split(',')
    .map(s => s.trim())
    .filter(s => s !== '')
  try {
    // Checked now, before anything is opened: a malformed origin stops the server with the fix.
    return sessionMcp({
      runJs: (vfs, session) => createRunJs({ vfs, ...(threads ? { executor: threads } : {}), tenant: session.owner }),
      ...(bashEntry ? { bash: (vfs: RunVfs) => bashEntry.createBash({ vfs }) } : {}),
      allowedOrigins: origins,
    })
  } catch (error) {
    refuse(`--mcp-origins / AGENT_VFS_MCP_ORIGINS: ${(error as Error).message}`)
  }
})()
// run_js in worker threads by default: a busy program blocks no request. Threads are shared fairly
// between owners (each program's tenant is its session's owner).
// From source (tsx), threads start through the same shim the tests use; the published package needs none.
const threads =
  threadCount === 0
    ? undefined
    : workerThreads({
        ...(threadCount !== undefined ? { size: threadCount } : {}),
        workerUrl: new URL('../test/run-js/worker-thread-dev.mjs', import.meta.url),
      })
// The threads start now, beside the rest of start-up and recovery, not on the first program: a cold
// start (seconds from source on a busy machine) would count against the first programs' time limits.
// Not awaited: recovery and the first requests do not wait for it.
void threads?.warm().catch(error => console.error('run_js worker threads could not start:', error))

/** The profile with its programs in the thread pool, each under its session's owner. */
function inThreads(profile: AgentProfile): AgentProfile {
  if (!threads) return profile
  return {
    ...profile,
    async setup(execution) {
      const setup = await profile.setup(execution)
      const tenant = execution.owner
      return {
        ...setup,
        // Programs that ask (tools: ask_user) run on this thread: a suspendable run's journal stays with its context.
        ...(setup.runJs
          ? {
              runJs: (vfs: RunVfs, tools: Record<string, RunJsTool>) =>
                createRunJs({ vfs, tools, executor: threads, ...(tenant ? { tenant } : {}) }),
            }
          : {}),
      }
    },
  }
}

async function openStore(): Promise<{ store: VfsStore; signals?: SessionSignals; label: string; close(): Promise<void> }> {
  if (env.DATABASE_URL) {
    const pg = (await import('pg')).default
    const pool = new pg.Pool({ connectionString: env.DATABASE_URL, max: 10 })
    // Plain reads (GET /sessions/{id}, log pages, workspace loads) on a pool of their own, so they
    // never wait behind the writers' transactions queued for `pool` (docs/stores.md).
    const reads = new pg.Pool({ connectionString: env.DATABASE_URL, max: 4 })
    const listener = new pg.Client({ connectionString: env.DATABASE_URL })
    const store = postgresStore({ client: pool, reads })
    try {
      await listener.connect()
      await store.migrate()
    } catch (error) {
      await Promise.all([pool.end(), reads.end()]).catch(() => undefined)
      refuse(describePostgresFailure(env.DATABASE_URL, error))
    }
    const signals = await postgresSignals({ listen: listener })
    return {
      store,
      signals,
      label: 'Postgres (DATABASE_URL)',
      close: async () => {
        await signals.close?.()
        await listener.end()
        await Promise.all([pool.end(), reads.end()])
      },
    }
  }
  const { PGlite } = await import('@electric-sql/pglite')
  const dir = dataDir
  const db = await PGlite.create(join(dir, 'sessions-pglite'))
  const store = postgresStore({ client: db })
  await store.migrate()
  return { store, label: `PGlite in ${dir}`, close: () => db.close() }
}

const slowed = (profile: AgentProfile) => inThreads(pacedProfile(profile, delay))

const openAi =
  env.OPENAI_BASE_URL && env.OPENAI_MODEL
    ? { baseURL: env.OPENAI_BASE_URL, modelId: env.OPENAI_MODEL, ...(env.OPENAI_API_KEY ? { apiKey: env.OPENAI_API_KEY } : {}) }
    : undefined
mkdirSync(dataDir, { recursive: true })
await checkPortFree('127.0.0.1', port).catch((error: Error) => refuse(error.message))
let releaseLock = () => {}
if (!env.DATABASE_URL) {
  try {
    releaseLock = lockDataFolder(dataDir)
  } catch (error) {
    refuse((error as Error).message)
  }
}
const opened = await openStore()
const host = createSessionHost({
  store: opened.store,
  agents: {
    // The scripted model streams its text in pieces (?live=1 shows it growing); a real one streams as it does.
    appendix: slowed(scriptAppendixProfile(openAi ? { openAi } : { stream: DEMO_STREAM })),
    'appendix-asking': slowed(
      scriptAppendixProfile({ askFirst: true, approveRunJs: true, ...(openAi ? { openAi } : { stream: DEMO_STREAM }) }),
    ),
    'program-question': slowed(programQuestionProfile()),
    'propose-notes': slowed(proposeNotesProfile()),
    ...(bashEntry ? { 'appendix-bash': slowed(bashAppendixProfile(vfs => bashEntry.createBash({ vfs }))) } : {}),
  },
  hostId: `${hostname()}-${process.pid}`,
  leaseMs,
  ...(opened.signals ? { signals: opened.signals } : {}),
  pollMs: opened.signals ? 5000 : 500,
  quota,
  budgets: { ...(executionBudget ? { execution: executionBudget } : {}), ...(ownerBudget ? { owner: ownerBudget } : {}) },
})

let secret = env.AGENT_VFS_JWT_SECRET
const dev = !secret
const kept = dev ? devSecret(dataDir) : undefined
if (kept) secret = kept.secret
if (secret!.length < 32) {
  console.error('AGENT_VFS_JWT_SECRET must be at least 32 characters')
  process.exit(2)
}
const app = createSessionApp(host, {
  auth: { secret: secret! },
  ...(maxJsonBytes ? { maxJsonBytes } : {}),
  ...(maxUploadBytes ? { maxUploadBytes } : {}),
})
// Every session's workspace as an MCP server at /sessions/{id}/mcp (docs/mcp.md); run_js like the agents'.
mcp(app, host)
const server = serve({ fetch: app.fetch, hostname: '127.0.0.1', port }, async info => {
  console.log(`agent-vfs sessions on http://127.0.0.1:${info.port} (${opened.label}, host ${host.hostId})`)
  const shown =
    Object.entries(quota)
      .map(([k, v]) => `${k} ${v}`)
      .join(', ') || 'none'
  console.log(
    `quotas per owner: ${shown}; run_js: ${threads ? `${threads.stats().threads || 'up to ' + (threadCount ?? 'parallelism')} worker threads` : 'on this thread'}`,
  )
  if (dev)
    console.log(
      `dev token (owner "dev", 24 h): ${await mintToken(secret!, 'dev')}\n(dev secret kept in ${kept!.path}: tokens survive restarts)`,
    )
  // Executions whose server died (lease expired) continue here: at start, then every lease period.
  await host.recover().catch(e => console.error('recover failed:', e))
})
const recovering = setInterval(() => void host.recover().catch(() => undefined), leaseMs)
// History retention (docs/history.md): one bounded pass every lease period, never two at once.
let collecting = false
const retaining = setInterval(() => {
  if (collecting) return
  collecting = true
  void host
    .collectHistory()
    .catch(e => console.error('history retention failed:', e))
    .finally(() => (collecting = false))
}, leaseMs)

let stopping = false
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, async () => {
    if (stopping) return
    stopping = true
    clearInterval(recovering)
    clearInterval(retaining)
    await host.stop()
    await threads?.close()
    server.close()
    await opened.close().catch(() => undefined)
    releaseLock()
    process.exit(0)
  })
}
