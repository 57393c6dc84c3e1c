/**
 * Running this repository's Worker (wrangler.toml) locally with wrangler, offline: the environment,
 * the D1 migration step and the `wrangler dev` process. Shared by `npm run dev:worker`
 * (scripts/dev-worker.ts), the loopback test harness (test/wrangler-dev/) and the edge benchmarks.
 */
import { execFile, spawn, type ChildProcess, type StdioOptions } from 'node:child_process'
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { SOURCE_CONDITION } from './from-source.js'

const run = promisify(execFile)
export const root = fileURLToPath(new URL('..', import.meta.url))
export const wranglerBin = `${root}node_modules/wrangler/bin/wrangler.js`

/** The Worker secret the edge app verifies session tokens with (HS256); the same name as `npm run serve`. */
export const JWT_SECRET_BINDING = 'AGENT_VFS_JWT_SECRET'
/** The D1 binding of wrangler.toml; `wrangler d1 migrations apply` takes a binding name too. */
export const D1_BINDING = 'DB'

/**
 * The environment of a wrangler run: no telemetry, no update check, no `Request.cf` fetch (the three
 * outbound connections wrangler makes), and nothing of a surrounding test runner.
 */
export function wranglerEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^(VITEST|TEST$|NODE_ENV$|NODE_OPTIONS$)/.test(k)))
  return {
    ...env,
    WRANGLER_SEND_METRICS: 'false',
    WRANGLER_HIDE_BANNER: 'true',
    CLOUDFLARE_CF_FETCH_ENABLED: 'false',
    NO_COLOR: '1',
    // The Worker is built from the sources (package.json `agent-vfs:source`), never from a dist/ that a
    // clone lacks or that an old build left behind; then wrangler's own defaults.
    WRANGLER_BUILD_CONDITIONS: `${SOURCE_CONDITION},workerd,worker,browser`,
    ...extra,
  }
}

/** A random HS256 secret (64 hex characters) for a local run. */
export function newDevSecret(): string {
  return Array.from(crypto.getRandomValues(new Uint8Array(32)), b => b.toString(16).padStart(2, '0')).join('')
}

export interface LocalState {
  /** wrangler's `--persist-to`: where local D1 and Durable Object data live (default `.wrangler/state`). */
  persistTo?: string
  /** Another wrangler.toml (default: the repository's). */
  config?: string
}

const stateArgs = ({ persistTo, config }: LocalState) => [
  ...(persistTo ? ['--persist-to', persistTo] : []),
  ...(config ? ['--config', config] : []),
]

/**
 * `wrangler d1 migrations apply DB --local`: creates the local D1 tables the Worker's `/d1` routes and
 * session index need. Idempotent (applied migrations are recorded). CI=true skips the confirmation
 * prompt wrangler would show in a terminal. Returns wrangler's output.
 */
export async function applyLocalMigrations(state: LocalState = {}): Promise<string> {
  try {
    const { stdout, stderr } = await run(
      process.execPath,
      [wranglerBin, 'd1', 'migrations', 'apply', D1_BINDING, '--local', ...stateArgs(state)],
      {
        cwd: root,
        env: wranglerEnv({ CI: 'true' }),
        timeout: 180_000,
        maxBuffer: 16 << 20,
      },
    )
    return stdout + stderr
  } catch (error) {
    const e = error as { stdout?: string; stderr?: string; message: string }
    throw new Error(`wrangler d1 migrations apply failed: ${e.message}\n${e.stdout ?? ''}${e.stderr ?? ''}`)
  }
}

export interface DevOptions extends LocalState {
  port: number
  /**
   * The JWT secret. It reaches the Worker through an env file readable only by this user (removed when
   * wrangler exits), not the command line, where any local user's `ps` would see it. The project's
   * `.dev.vars`, if any, is loaded first, so its other values still apply.
   */
  secret: string
  /** Port of wrangler's devtools inspector; pass a free one when several dev servers may run at once. */
  inspectorPort?: number
  /** 'pipe' to read the output (tests), 'inherit' to show it. */
  stdio?: 'pipe' | 'inherit'
  /** Static assets to serve instead of wrangler.toml's `[assets] directory` (`--assets`; its routing stays). */
  assets?: string
  /** More variables for the Worker's env (e.g. `MODEL_DELAY_MS`), written to the same env file as the secret. */
  vars?: Record<string, string>
}

/**
 * Starts `wrangler dev` on 127.0.0.1 in its own process group (wrangler, esbuild and two workerd
 * processes), so {@link stopGroup} can end all of them. `ready` resolves with the URL once wrangler
 * says "Ready on", and rejects if it exits first or takes longer than `timeoutMs`.
 */
export function startWranglerDev(
  options: DevOptions,
  timeoutMs = 180_000,
): { child: ChildProcess; ready: Promise<string>; output: () => string } {
  const secretDir = mkdtempSync(join(tmpdir(), 'agent-vfs-dev-secret-'))
  const secretFile = join(secretDir, 'secret.env')
  const vars = Object.entries(options.vars ?? {})
  for (const [k, v] of vars) if (!/^[A-Z_][A-Z0-9_]*$/.test(k) || /[\r\n]/.test(v)) throw new Error(`not a plain env variable: ${k}`)
  const lines = [`${JWT_SECRET_BINDING}=${options.secret}`, ...vars.map(([k, v]) => `${k}=${v}`)]
  writeFileSync(secretFile, lines.join('\n') + '\n', { mode: 0o600 })
  // Given env files, wrangler reads no .dev.vars of its own: name it first, ours last (later files win).
  const devVars = join(options.config ? dirname(resolve(root, options.config)) : root, '.dev.vars')
  const envFiles = [...(existsSync(devVars) ? [devVars] : []), secretFile].flatMap(f => ['--env-file', f])
  const args = [
    wranglerBin,
    'dev',
    '--ip',
    '127.0.0.1',
    '--port',
    String(options.port),
    '--show-interactive-dev-session=false',
    ...envFiles,
    ...stateArgs(options),
    ...(options.inspectorPort ? ['--inspector-port', String(options.inspectorPort)] : []),
    ...(options.assets ? ['--assets', options.assets] : []),
  ]
  const stdio: StdioOptions = options.stdio === 'inherit' ? ['ignore', 'pipe', 'inherit'] : ['ignore', 'pipe', 'pipe']
  const child = spawn(process.execPath, args, { cwd: root, env: wranglerEnv(), detached: true, stdio })
  child.once('exit', () => rmSync(secretDir, { recursive: true, force: true }))
  let output = ''
  const ready = new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`wrangler dev did not get ready in ${timeoutMs} ms:\n${output}`)), timeoutMs)
    const seen = (chunk: Buffer) => {
      output += chunk
      if (options.stdio === 'inherit') process.stdout.write(chunk)
      const m = /Ready on (http:\/\/[\d.]+:\d+)/.exec(output)
      if (m) {
        clearTimeout(timer)
        resolve(m[1])
      }
    }
    child.stdout?.on('data', seen)
    child.stderr?.on('data', seen)
    child.once('exit', (code, signal) => {
      clearTimeout(timer)
      reject(new Error(`wrangler dev exited (${code ?? signal}) before it was ready:\n${output}`))
    })
  })
  return { child, ready, output: () => output }
}

/**
 * True while any process of the group led by `pid` is alive. On Linux it reads /proc, so a zombie
 * that no init reaps does not count as alive; elsewhere it asks kill(-pid, 0).
 */
export function groupAlive(pid: number): boolean {
  if (existsSync('/proc/self/stat')) {
    for (const entry of readdirSync('/proc')) {
      if (!/^\d+$/.test(entry)) continue
      let stat: string
      try {
        stat = readFileSync(`/proc/${entry}/stat`, 'utf8')
      } catch {
        continue // exited meanwhile
      }
      // "pid (comm) state ppid pgrp …"; comm may hold spaces and parentheses, so split after the last ')'.
      const [state, , pgrp] = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
      if (Number(pgrp) === pid && state !== 'Z') return true
    }
    return false
  }
  try {
    process.kill(-pid, 0)
    return true
  } catch {
    return false
  }
}

/**
 * Ends the process group a {@link startWranglerDev} child leads: SIGTERM (wrangler stops workerd and
 * esbuild itself), then SIGKILL for whatever is left after `graceMs`. Resolves once no process of the
 * group remains.
 */
export async function stopGroup(child: ChildProcess, graceMs = 10_000): Promise<void> {
  const pid = child.pid
  if (!pid) return
  const signal = (s: NodeJS.Signals) => {
    try {
      process.kill(-pid, s)
    } catch {
      // The group is already gone.
    }
  }
  signal('SIGTERM')
  const until = Date.now() + graceMs
  while (groupAlive(pid) && Date.now() < until) await new Promise(r => setTimeout(r, 100))
  if (groupAlive(pid)) signal('SIGKILL')
  while (groupAlive(pid)) await new Promise(r => setTimeout(r, 50))
}

/** wrangler's "Total Upload: 574.66 KiB / gzip: 256.01 KiB" line of a deploy (or `--dry-run`). */
export function uploadSize(output: string): { totalKiB: number; gzipKiB: number } {
  const m = /Total Upload: ([\d.]+) KiB \/ gzip: ([\d.]+) KiB/.exec(output)
  if (!m) throw new Error(`no upload size in wrangler output:\n${output}`)
  return { totalKiB: Number(m[1]), gzipKiB: Number(m[2]) }
}

/**
 * `wrangler deploy --dry-run --minify --outdir <outdir> [main]` of the repository's Worker config:
 * bundles without uploading; returns the upload size wrangler reports and its output.
 */
export async function dryRunDeploy(outdir: string, main?: string): Promise<{ totalKiB: number; gzipKiB: number; output: string }> {
  try {
    const { stdout, stderr } = await run(
      process.execPath,
      [wranglerBin, 'deploy', ...(main ? [main] : []), '--dry-run', '--minify', '--outdir', outdir],
      {
        cwd: root,
        env: wranglerEnv(),
        timeout: 180_000,
        maxBuffer: 16 << 20,
      },
    )
    const output = stdout + stderr
    return { ...uploadSize(output), output }
  } catch (error) {
    const e = error as { stdout?: string; stderr?: string; message: string }
    throw new Error(`wrangler deploy --dry-run failed: ${e.message}\n${e.stdout ?? ''}${e.stderr ?? ''}`)
  }
}
