import { Bash, type CommandName } from 'just-bash'
import { isVfsError, withActor, type ChangeActor, type RunJsFetch, type Vfs } from 'agent-vfs'
import { applyStaged } from './apply.js'
import { executionLimits, resolveBashLimits, type BashLimits } from './limits.js'
import { bashFetch } from './network.js'
import type { Staging } from './staging.js'
import { WorkspaceFs } from './workspace-fs.js'

/** Options of {@link createBash}. */
export interface CreateBashOptions {
  /** The workspace, or a view of it (`scopeRun`, `restrict`): its rules hold for every command. */
  vfs: Vfs
  limits?: BashLimits
  /** Working directory of a command line that names none (default `/`). */
  cwd?: string
  /** Environment of every command line (an exec's `env` adds to it). */
  env?: Record<string, string>
  /**
   * The history tag of what commands write (default `'bash'`). It applies when `vfs` is the
   * workspace `openVfs` returned or a branch; a view carries the tag of the workspace it was made
   * over (make it over `withActor(vfs, 'bash')` to tag a run's commands).
   */
  actor?: ChangeActor
  /** Gives commands `curl` under run_js's fetch rules (docs/run-js-fetch.md). Default: no network. */
  fetch?: RunJsFetch
  /** Only these commands exist (default: every just-bash command but python and js-exec). */
  commands?: readonly string[]
}

/** Options of one {@link WorkspaceBash.exec}. */
export interface BashExecOptions {
  /** Working directory of this command line. */
  cwd?: string
  /** Environment variables added for this command line. */
  env?: Record<string, string>
  /** Aborts the command line: it ends at its next await, and nothing it wrote lands. */
  signal?: AbortSignal
  /** The run's deadline (milliseconds since the epoch, as `Date.now()`): the command line ends by it. */
  deadline?: number
  /** Standard input of the command line. */
  stdin?: string
}

/** What a command line printed and how it ended (just-bash's result shape). */
export interface BashResult {
  stdout: string
  stderr: string
  /** 0: everything it wrote landed, in one commit. Anything else: nothing it wrote landed. */
  exitCode: number
}

/** A shell over a workspace. */
export interface WorkspaceBash {
  /**
   * Runs one command line (any bash script). What it writes is held until it ends, then lands as
   * one group commit if it exits 0; a command line that fails, times out or is aborted writes
   * nothing. Command lines of one shell run one at a time, in call order.
   */
  exec(script: string, options?: BashExecOptions): Promise<BashResult>
}

/**
 * A bash (just-bash: coreutils, `grep`, `sed`, `awk`, `jq`, `find`, pipes, redirections) whose
 * filesystem is the workspace: reads from memory, every path rule of the view enforced, quotas,
 * history. See docs/bash.md.
 */
export function createBash(options: CreateBashOptions): WorkspaceBash {
  const limits = resolveBashLimits(options.limits)
  const view = tagged(options.vfs, options.actor ?? 'bash')
  const fs = new WorkspaceFs(view, limits, options.vfs)
  let signal: AbortSignal = new AbortController().signal
  const makeBash = (wallMs: number) =>
    new Bash({
      fs,
      cwd: options.cwd ?? '/',
      env: options.env,
      executionLimits: executionLimits(limits, wallMs),
      ...(options.fetch ? { fetch: bashFetch(options.fetch, () => signal) } : {}),
      ...(options.commands ? { commands: options.commands as CommandName[] } : {}),
    })
  // just-bash reads its limits when it is made: one instance serves command lines with the whole
  // `timeoutMs`; one whose deadline comes sooner gets its own (a few milliseconds to make).
  let shared: Bash | undefined
  let queue: Promise<unknown> = Promise.resolve()
  return {
    exec(script, execOptions = {}) {
      const run = queue.then(async () => {
        const staging = fs.begin()
        const wallMs = Math.min(limits.timeoutMs, (execOptions.deadline ?? Infinity) - Date.now())
        const stop = stopper(execOptions.signal, wallMs)
        signal = stop.signal
        try {
          const bash = wallMs >= limits.timeoutMs ? (shared ??= makeBash(limits.timeoutMs)) : makeBash(wallMs)
          return await runOnce(bash, staging, script, execOptions, stop.signal, wallMs)
        } finally {
          stop.done()
        }
      })
      queue = run.catch(() => undefined)
      return run
    },
  }
}

async function runOnce(
  bash: Bash,
  staging: Staging,
  script: string,
  options: BashExecOptions,
  signal: AbortSignal,
  wallMs: number,
): Promise<BashResult> {
  if (typeof script !== 'string') throw new TypeError('exec(script): the script must be a string')
  if (wallMs <= 0) return { stdout: '', stderr: 'bash: the deadline has passed\n', exitCode: 124 }
  let result: BashResult
  try {
    const r = await bash.exec(script, { cwd: options.cwd, env: options.env, stdin: options.stdin, signal })
    result = { stdout: r.stdout, stderr: r.stderr, exitCode: r.exitCode }
  } catch (error) {
    // just-bash lets a refused redirection (`> /context/x`) end the whole command line with an
    // exception; the line then fails like any other, and nothing it wrote lands.
    result = { stdout: '', stderr: `bash: ${String((error as Error)?.message ?? error)}\n`, exitCode: 1 }
  }
  if (signal.aborted && result.exitCode === 0) result.exitCode = 124
  if (result.exitCode !== 0) return result
  try {
    await applyStaged(staging)
  } catch (error) {
    result.exitCode = 1
    result.stderr += `bash: nothing was written: ${isVfsError(error) ? error.message : String((error as Error)?.message ?? error)}\n`
  }
  return result
}

/** The workspace's writes tagged with the actor, when the actor can be attached there (see CreateBashOptions.actor). */
function tagged(vfs: Vfs, actor: ChangeActor): Vfs {
  try {
    return withActor(vfs, actor)
  } catch (error) {
    if (isVfsError(error, 'EINVAL')) return vfs
    throw error
  }
}

/** A signal that aborts with the caller's and after `wallMs` (for commands that wait: the deadline of busy loops is just-bash's). */
function stopper(outer: AbortSignal | undefined, wallMs: number) {
  const controller = new AbortController()
  const abort = () => controller.abort()
  outer?.addEventListener('abort', abort, { once: true })
  if (outer?.aborted) controller.abort()
  const timer = setTimeout(abort, Math.max(0, wallMs))
  return {
    signal: controller.signal,
    done: () => {
      clearTimeout(timer)
      outer?.removeEventListener('abort', abort)
    },
  }
}
