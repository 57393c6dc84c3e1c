import type { BashOptions } from 'just-bash'

type ExecutionLimits = NonNullable<BashOptions['executionLimits']>

/**
 * Bounds on one command line (defaults in parentheses; docs/bash.md). Each ends the command with a
 * non-zero exit code and a message on stderr, and then nothing it wrote lands.
 */
export interface BashLimits {
  /** Wall time of one command line, in milliseconds (30,000); an exec's `deadline` can shorten it. */
  timeoutMs?: number
  /** Bytes of stdout and stderr together (1 MiB). */
  maxOutputBytes?: number
  /** Iterations of one `while`/`for`/`until` loop, and of awk, sed and jq loops (10,000). */
  maxLoopIterations?: number
  /** Commands one command line may run, loop bodies and pipelines included (10,000). */
  maxCommands?: number
  /** Depth of function calls, recursion included (100). */
  maxCallDepth?: number
  /** Bytes of files one command line may hold before it ends and they land (64 MiB). */
  maxStagedBytes?: number
  /** Paths one command line may change (10,000). */
  maxStagedPaths?: number
  /** Bytes of the script itself (1 MiB). */
  maxScriptBytes?: number
}

export const DEFAULT_BASH_LIMITS: Required<BashLimits> = {
  timeoutMs: 30_000,
  maxOutputBytes: 1024 * 1024,
  maxLoopIterations: 10_000,
  maxCommands: 10_000,
  maxCallDepth: 100,
  maxStagedBytes: 64 * 1024 * 1024,
  maxStagedPaths: 10_000,
  maxScriptBytes: 1024 * 1024,
}

/** The caller's limits over the defaults; a limit that is not a positive number is a TypeError. */
export function resolveBashLimits(limits: BashLimits = {}): Required<BashLimits> {
  const out = { ...DEFAULT_BASH_LIMITS }
  for (const [name, value] of Object.entries(limits) as Array<[keyof BashLimits, unknown]>) {
    if (value === undefined) continue
    if (!(name in DEFAULT_BASH_LIMITS)) throw new TypeError(`createBash: unknown limit ${JSON.stringify(name)}`)
    if (typeof value !== 'number' || !(value > 0)) throw new TypeError(`createBash: limits.${name} must be a positive number`)
    out[name] = value
  }
  return out
}

/** just-bash's execution limits for one command line that must end by `wallMs` from now. */
export function executionLimits(limits: Required<BashLimits>, wallMs: number): ExecutionLimits {
  const bytes = Math.max(limits.maxStagedBytes, limits.maxOutputBytes)
  return {
    maxExecutionTimeMs: Math.max(1, wallMs),
    maxOutputSize: limits.maxOutputBytes,
    maxLoopIterations: limits.maxLoopIterations,
    maxAwkIterations: limits.maxLoopIterations,
    maxSedIterations: limits.maxLoopIterations,
    maxJqIterations: limits.maxLoopIterations,
    maxCommandCount: limits.maxCommands,
    maxCallDepth: limits.maxCallDepth,
    maxSourceBytes: limits.maxScriptBytes,
    // Strings, heredocs and what commands hold in memory: no more than a command line may stage.
    maxStringLength: bytes,
    maxHeredocSize: bytes,
    maxLiveBytes: 2 * bytes,
    maxInputBytes: 2 * bytes,
    maxFileSystemBytes: bytes,
  }
}
