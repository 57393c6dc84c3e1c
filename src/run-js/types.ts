import type { Vfs } from '../vfs/types.js'
import type { QuickJsEngine } from './engine/engine.js'
import type { TypeScriptLoader } from './host/typescript.js'

// Imports only leaves (engine.ts, typescript.ts: no imports inside run_js), so every file may import these types.

/**
 * Limits of one run. Every limit holds against hostile guests: see the "Limits that hold" notes in
 * src/run-js/README.md for how each is enforced.
 */
export interface RunJsLimits {
  /**
   * Hard cap on the guest heap in bytes (default 64 MiB, at least 16 MiB, at most 2 GiB). It is the size
   * of the capped `WebAssembly.Memory` the QuickJS instance runs in, so it also holds QuickJS's ~5 MB
   * shadow stack; the guest gets a little less.
   */
  memoryBytes?: number
  /**
   * QuickJS stack in bytes (default 64 KiB, ≈370 plain frames). Larger stacks let deeply nested
   * `JSON.parse`/`JSON.stringify` overflow the host's own stack before QuickJS notices.
   */
  stackBytes?: number
  /** Wall-clock limit in ms for the whole run, host calls included (default 10,000). */
  timeMs?: number
  /**
   * How many times QuickJS may ask the interrupt handler whether to stop (≈25–40 per ms of guest CPU).
   * It bounds guest CPU when the clock does not move (deployed Workers freeze `Date.now()` during CPU
   * work). Default: 100 × `timeMs`.
   */
  interruptBudget?: number
  /** Characters of console output kept (default 64 KiB); the rest is dropped with a note. */
  logChars?: number
  /** Characters of JSON result returned inline (default 16 KiB); larger results go to a file. */
  inlineResultChars?: number
  /**
   * Largest program in UTF-8 bytes (default 1 MiB, at most 16 MiB). Larger programs are refused with
   * `RangeError` code `E2BIG` before anything is compiled: parsing blocks the host and no deadline
   * can interrupt it.
   */
  programBytes?: number
}

/** What a tool gets with each call besides its input. */
export interface RunJsToolContext {
  /** Aborts when the run ends (finished, timed out, aborted): stop work that nobody will read. */
  signal: AbortSignal
}

/** Anything with a Standard Schema `validate` (zod 4, valibot, arktype …). */
export interface RunJsSchema {
  readonly '~standard': {
    validate(
      value: unknown,
    ):
      | { value?: unknown; issues?: ReadonlyArray<{ message: string; path?: ReadonlyArray<unknown> }> }
      | Promise<{ value?: unknown; issues?: ReadonlyArray<{ message: string; path?: ReadonlyArray<unknown> }> }>
  }
}

/** A host function the guest may call as `external_<sanitized id>(input)`. Its result must be JSON. */
export type RunJsToolFunction = (input: unknown, context: RunJsToolContext) => unknown

/** A tool: a plain async function, or one with an input schema checked before it runs. */
export type RunJsTool = RunJsToolFunction | { inputSchema?: RunJsSchema; execute: RunJsToolFunction }

/** Options of `createRunJs`. */
export interface RunJsOptions {
  /** The workspace the guest sees as `vfs` (a run scope limits it to the run's roots). */
  vfs: Vfs
  /** Allow-listed host functions by id; the guest sees each as `external_<sanitizeToolId(id)>`. */
  tools?: Record<string, RunJsTool>
  limits?: RunJsLimits
  /**
   * Where scripts and large results are archived. Default: `/state/.run_js` on a run scope with a
   * writable `state` root, `/.run_js` on a plain workspace. `false` archives nothing.
   */
  archiveDir?: string | false
  /**
   * How QuickJS instances are made. Default: the release build loaded by its own loader (Node,
   * browsers). On Cloudflare Workers pass `workerdEngine()` from `agent-vfs/run-js/workerd`.
   */
  engine?: QuickJsEngine
  /**
   * How to load ts-blank-space for programs that are not JavaScript; `false` runs JavaScript only.
   * Default: a plain dynamic import that bundlers do not follow (fine in Node). In a bundled browser
   * or Worker app pass `() => import('agent-vfs/run-js/typescript')` (pre-bundled, ~1 MB gzip, loaded
   * on the first program that is not JavaScript). Without it a TypeScript program fails with a
   * SyntaxError that says TypeScript is not enabled.
   */
  typescript?: TypeScriptLoader | false
  /**
   * Runs of this runner that execute at once (default 4; `Infinity` for no limit). The rest wait in
   * FIFO order, and the wait counts against each run's own `timeMs`: a run whose deadline passes while
   * it waits ends with `TimeoutError` and never runs; an aborted run leaves the line at once.
   */
  concurrency?: number
  /** Runs that may wait for a slot (default 1,000); one more ends at once with `QueueFullError` (code `EBUSY`). */
  maxQueued?: number
  /**
   * Where programs execute. Default: this thread. In Node, `workerThreads()` from `agent-vfs/run-js/node`
   * runs them in a pool of worker threads so that no program's CPU blocks this thread; the workspace
   * and the tools stay here and are called across. It cannot be combined with `engine` or a custom
   * `typescript` loader (functions of this thread).
   */
  executor?: RunJsExecutor
  /**
   * Whom the runs are for (an owner's id, say), passed to the executor as {@link RunJsJob.tenant}:
   * `workerThreads()` shares its threads fairly between tenants (a cap each, turns in round-robin),
   * so one tenant's busy programs cannot hold every thread. Default: one shared tenant.
   */
  tenant?: string
}

/**
 * Runs programs somewhere other than the calling thread (see `workerThreads` in
 * `agent-vfs/run-js/node`). The runner has already queued the run and resolved its options; the
 * workspace and the tools stay with the runner, and the executor reaches them through
 * {@link RunJsJob.call}.
 */
export interface RunJsExecutor {
  /** Runs one program. Resolves with the same result an in-thread run gives; never rejects. */
  execute(job: RunJsJob): Promise<RunJsResult>
}

/** One program for a {@link RunJsExecutor}. Everything but `vfs`, `signal` and `call` is plain data. */
export interface RunJsJob {
  code: string
  /** Every limit resolved, as configured: a timeout is reported as `limits.timeMs`. */
  limits: Readonly<Required<RunJsLimits>>
  /** What is left of `limits.timeMs` after the run waited for a slot: the program's own deadline. */
  timeLeftMs: number
  /**
   * The workspace, only to tell workspaces apart (one id per workspace keeps the archive's numbering);
   * its methods are called through {@link call}. Absent: the program gets no `vfs`.
   */
  vfs?: Vfs
  /** Tool ids the program gets (as `external_<sanitizeToolId(id)>`); they are called through {@link call}. */
  toolIds: readonly string[]
  /** Where to archive the program; undefined archives nothing. */
  archiveDir?: string
  /** Whether programs that are not JavaScript may be stripped of TypeScript. */
  typescript: boolean
  /** Whom the run is for ({@link RunJsOptions.tenant}): an executor shares its slots fairly between tenants. */
  tenant?: string
  /** The caller's signal: on abort, stop the program (its result is then `AbortError`). */
  signal?: AbortSignal
  /**
   * Does a file operation (`kind` 'vfs', `name` one of `HOST_VFS_METHODS`, `args` as the `Vfs` method
   * takes them; a search's `signal` is supplied here) or a tool call (`kind` 'tool', `name` the tool
   * id, `args` `[input]`; the answer's value is the tool's JSON text, '' for undefined) for the
   * program, with the checks of an in-thread run. Never rejects; the answer is structured-cloneable
   * data. Calls made after `execute` settled are refused.
   */
  call(kind: 'vfs' | 'tool', name: string, args: unknown[]): Promise<HostCallAnswer>
}

/** A host error as the guest sees it: name, message and a workspace error code, nothing else. */
export interface GuestError {
  name: string
  message: string
  code?: string
}

/**
 * The answer to one {@link RunJsJob.call}: only data (strings, numbers, plain objects, arrays,
 * `Uint8Array`), so an executor can post it to another thread or process as it is. A tool's value is
 * its JSON text (`''` for undefined).
 */
export type HostCallAnswer = { ok: true; value: unknown } | { ok: false; error: GuestError }

/** Options of one `run`. */
export interface RunOptions {
  /** Aborting ends the run with `AbortError`; an already aborted signal runs nothing. */
  signal?: AbortSignal
}

/** Why a run failed. `name` is the guest error's name (`TypeError`, `TimeoutError`, `AbortError` …). */
export interface RunJsError {
  name: string
  message: string
  /** 1-based line in the program, when known. */
  line?: number
  /** The workspace error code (`ENOENT`, `EACCES` …) when a file operation failed. */
  code?: string
  /** The host failed, not the program (QuickJS could not start): retrying or changing the program cannot help. */
  host?: true
}

/** What `run` resolves to. Shaped like Mastra's `CodeModeToolResult`, plus where things were archived. */
export interface RunJsResult {
  success: boolean
  /**
   * The returned value, after a JSON round trip. When its JSON is larger than the inline limit this is
   * a short text preview instead, and `resultPath`/`bytes` say where the full result is.
   */
  result?: unknown
  /** Console output in order, kept on failure too. */
  logs: string[]
  error?: RunJsError
  /** Where the program was archived; absent when archiving is off or the run never started. */
  scriptPath?: string
  /** The JSON file holding a result too large to return inline. */
  resultPath?: string
  /** UTF-8 size of that file. */
  bytes?: number
  /** Milliseconds the program waited for a slot (of the runner, of a worker pool) before it ran; absent when it did not wait. */
  queuedMs?: number
  /** Milliseconds spent running the program's guest code inside QuickJS (not waiting for host calls): its CPU time. */
  cpuMs?: number
}

/** A runner bound to one workspace. Runs share nothing but the workspace. */
export interface RunJs {
  /** Runs one program (an async function body, JavaScript or TypeScript). Never throws for guest behaviour. */
  run(code: string, options?: RunOptions): Promise<RunJsResult>
  /** Frees the QuickJS instances kept for reuse. Later runs start new ones; runs in progress finish. */
  close(): void
}
