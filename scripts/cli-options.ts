/**
 * The command line and environment of the scripts a person starts (npm run serve, dev, dev:worker):
 * an option or a number that is wrong stops the script with one line that says what to write, never
 * silence and never Node's internal wording.
 *
 * `npm run serve --max-sessions 5` (no `--`) hands the option to npm, not to the script: npm keeps it
 * as its own config and passes it on only as the variable `npm_config_max_sessions`. Such variables
 * are recognised: the script's own options by name, anything else by not being one of npm's settings
 * (npm's list, read from the npm that runs the script; where it cannot be read, only the script's
 * own options are recognised).
 */
import { existsSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { parseArgs } from 'node:util'

export interface CliSpec {
  /** How a person starts it: `npm run serve`. */
  command: string
  /** The options, `--name value` or `--name=value`; boolean ones take no value. */
  options: Record<string, 'string' | 'boolean'>
  usage: string
}

/** A wrong option or value; its message is the whole story, printed as is (exit code 2). */
export class CliError extends Error {}

/** The options given after `--`; throws a CliError for an unknown option, a missing value or a stray word. */
export function parseCli(spec: CliSpec, argv: string[], env: NodeJS.ProcessEnv): Record<string, string | boolean | undefined> {
  refuseNpmConfig(spec, env)
  try {
    const options = Object.fromEntries(Object.entries(spec.options).map(([name, type]) => [name, { type }]))
    return parseArgs({ args: argv, options: { ...options, help: { type: 'boolean', short: 'h' } }, strict: true, allowPositionals: false })
      .values as Record<string, string | boolean | undefined>
  } catch (error) {
    throw new CliError(`${spec.command}: ${(error as Error).message}\n\n${spec.usage}`)
  }
}

/** Settings npm itself puts in a script's environment that are not in its list of settings. */
const NPM_RUNTIME = new Set(['local_prefix', 'global_prefix', 'npm_version', 'nodedir', 'argv'])

function refuseNpmConfig(spec: CliSpec, env: NodeJS.ProcessEnv): void {
  if (!env.npm_lifecycle_event) return
  const ours = new Map(Object.keys(spec.options).map(name => [name.replace(/-/g, '_'), name]))
  const npmKnows = npmSettings(env.npm_execpath)
  for (const [key, value] of Object.entries(env)) {
    if (!key.startsWith('npm_config_')) continue
    const name = key.slice('npm_config_'.length)
    const option = ours.get(name) ?? (npmKnows && !npmKnows.has(name) && !NPM_RUNTIME.has(name) ? name.replace(/_/g, '-') : undefined)
    if (option === undefined) continue
    const given = value === 'true' ? `--${option}` : `--${option}=${value}`
    throw new CliError(
      `${spec.command}: npm took ${given} as its own setting and did not pass it on: write ${spec.command} -- ${given}` +
        (ours.has(name) ? '' : `\n\n${spec.usage}`),
    )
  }
}

/** The names of npm's settings (`registry`, `fund`, …, `-` as `_`), from the npm running this script; undefined if unreadable. */
function npmSettings(npmCli: string | undefined): Set<string> | undefined {
  if (!npmCli) return undefined
  try {
    const file = join(dirname(npmCli), '..', 'node_modules', '@npmcli', 'config', 'lib', 'definitions', 'index.js')
    if (!existsSync(file)) return undefined
    const { definitions } = createRequire(import.meta.url)(file) as { definitions: Record<string, unknown> }
    return new Set(Object.keys(definitions).map(name => name.replace(/-/g, '_')))
  } catch {
    return undefined
  }
}

/**
 * A whole number from the environment within [min, max], or the fallback when unset or empty;
 * throws a CliError naming the variable, the range and what was given.
 */
export function envInteger(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name]
  if (raw === undefined || raw.trim() === '') return fallback
  const value = Number(raw)
  if (!/^\s*\d+\s*$/.test(raw) || !Number.isSafeInteger(value) || value < min || value > max)
    throw new CliError(`${name} must be a whole number from ${min} to ${max}, got ${JSON.stringify(raw)}`)
  return value
}

/** A TCP port from the environment (0: any free one). */
export function envPort(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  return envInteger(env, name, fallback, 0, 65_535)
}

/** Runs `read`; a CliError becomes its message on stderr and exit code 2. */
export function orExit<T>(read: () => T): T {
  try {
    return read()
  } catch (error) {
    if (!(error instanceof CliError)) throw error
    console.error(error.message)
    process.exit(2)
  }
}
