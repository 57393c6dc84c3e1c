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
  /**
   * UTF-8 bytes one run may write through `vfs.write` (default 64 MiB). A write past it fails in the
   * guest with `EQUOTA` and writes nothing; the run goes on. Raise it for programs that produce more.
   */
  writeBytes?: number
  /** Writes (files created or replaced) one run may make through `vfs.write` (default 10,000); past it, `EQUOTA`. */
  writeFiles?: number
  /** Modules one run may import from the workspace (default 64); one more fails the import with `E2BIG`. */
  modules?: number
  /** UTF-8 bytes of all the modules one run imports (default 4 MiB). */
  moduleBytes?: number
  /** How deep imports may nest, the program's own imports being depth 1 (default 16). */
  importDepth?: number
}

/**
 * ES-module imports from the workspace: `import { parse } from '/skills/fountain.js'`. A specifier is
 * a workspace path (absolute, or relative to the importing module; the program itself sits at `/`)
 * or a bare name `map` names; nothing else (no URLs, no packages, no network). Every module is read
 * through the run's own workspace view, so its path policy holds (a run scope refuses what is outside
 * its roots), and `roots` can narrow it further. Limits: `modules`, `moduleBytes`, `importDepth`.
 */
export interface RunJsImports {
  /** Directories modules may come from (e.g. `['/skills']`). Default: any path the run's workspace lets it read. */
  roots?: readonly string[]
  /**
   * Bare names mapped to workspace files, as in an HTML import map: `{ fountain: '/skills/fountain.js' }`;
   * a key ending in `/` maps a prefix (`{ 'lib/': '/skills/lib/' }`).
   */
  map?: Readonly<Record<string, string>>
}

/** One entry of a fetch allow-list. */
export interface RunJsFetchRule {
  /**
   * An origin and a path, as the URL parser writes them (`https://api.example.com/v1/`, or
   * `https://api.example.com/` for the whole origin): URLs of exactly this origin whose path is this
   * path or under it on a segment boundary may be fetched. Anything else (`https://api.example.com`
   * with no path, a query, another spelling) makes `createRunJs` throw, saying what to write.
   */
  prefix: string
  /** Methods allowed (default GET and HEAD). */
  methods?: readonly string[]
  /** Headers the host adds to requests this rule matches (secrets): the program never sees them; their values are redacted from the status text, headers, body, URL and errors it gets back. */
  headers?: Readonly<Record<string, string>>
}

/**
 * The opt-in `external_fetch(urlOrRequest)` of programs (see docs/run-js-fetch.md): executed by the
 * host, each request and each redirect hop checked against `allow`; private, link-local and loopback
 * hosts refused unless `allowPrivate` says so.
 */
export interface RunJsFetch {
  allow: readonly RunJsFetchRule[]
  /** `true`, or the hosts (`host:port` as in `URL.host`) that may be private or loopback (tests on 127.0.0.1). Default: none. */
  allowPrivate?: true | readonly string[]
  /** A URL on no rule: `'allow'` lets this origin and method through for this runner, anything else refuses. Route it to a person through the agent's policy. */
  ask?: (request: { url: string; origin: string; method: string }) => Promise<'allow' | 'deny'> | 'allow' | 'deny'
  /** Resolves a host name to addresses, so that names pointing at private addresses are refused too (Node: `dns.promises.lookup` with `all`). Default: only literal hosts and local names are judged. */
  resolve?: (hostname: string) => Promise<readonly string[]>
  /** Per run: requests (hops included; default 50), request body bytes (1 MiB), response bytes in total, shared by concurrent requests and reserved before they are read (4 MiB), redirects per request (5). */
  limits?: { maxRequests?: number; maxRequestBytes?: number; maxResponseBytes?: number; maxRedirects?: number }
  /** The host's fetch (default `globalThis.fetch`). */
  fetch?: typeof fetch
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
   * Default: a plain dynamic import that bundlers do not follow (fine in Node with its node_modules;
   * where it cannot resolve, `createRunJs` says so once on the console). In a bundled app (browser,
   * Worker, a Node function deployed as one file) pass `() => import('agent-vfs/run-js/typescript')`
   * (pre-bundled, ~1 MB gzip, loaded on the first program that is not JavaScript). Without it a
   * TypeScript program fails with a SyntaxError that says TypeScript is not enabled.
   */
  typescript?: TypeScriptLoader | false
  /** Gives programs `external_fetch`, executed by the host under this policy. Default: no network. */
  fetch?: RunJsFetch
  /** How `import` resolves (roots, an import map); programs may import workspace modules either way. */
  imports?: RunJsImports
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
  /** How the program's imports resolve ({@link RunJsOptions.imports}, checked); modules are read through {@link call}. */
  imports?: RunJsImports
  /** Whom the run is for ({@link RunJsOptions.tenant}): an executor shares its slots fairly between tenants. */
  tenant?: string
  /** The caller's signal: on abort, stop the program (its result is then `AbortError`). */
  signal?: AbortSignal
  /**
   * Present when the run is journaled (`suspendable` or `resume`): the program's time and randomness,
   * so that a resumed program reads the same values. Seed its `Math.random` with `seed`; its n-th
   * reading of the clock (`Date.now()`, `new Date()`) is `times[n]` while recorded times remain, else
   * the executor's own clock; report every reading through `read`, in order with the {@link call}s.
   */
  clock?: RunJsJobClock
  /**
   * Does a call of the program's guest API (`kind` 'guest', `name` a function of its `vfs` object:
   * `write`, `read` …, `args` as the program passed them; the answer's value is `{ kind: 'text', text }`,
   * `{ kind: 'bytes', bytes }`, `{ kind: 'json', value }` or `{ kind: 'none' }`), a tool call (`kind`
   * 'tool', `name` the tool id, `args` `[input]`; the answer's value is the tool's JSON text, '' for
   * undefined) or a file operation (`kind` 'vfs', `name` one of `HOST_VFS_METHODS`, `args` as the `Vfs`
   * method takes them; a search's `signal` is supplied here) for the program, with the checks of an
   * in-thread run. Never rejects; the answer is structured-cloneable data. Calls made after `execute`
   * settled are refused. A journaled run records 'guest' and 'tool' calls under the names an in-thread
   * run uses (`vfs.write`, `external_ask_user`), so either can resume the other's journal; 'vfs' calls
   * are journaled under the method's name (`vfs.writeFile`), which only such an executor replays. Kind
   * 'archive' is a file operation of the runner itself (its archive in `archiveDir`, the modules it
   * reads ahead), not of the program: it is never journaled, so a resumed run archives itself again
   * instead of replaying the first run's archive.
   */
  call(kind: 'guest' | 'vfs' | 'tool' | 'archive', name: string, args: unknown[]): Promise<HostCallAnswer>
}

/** A journaled run's time and randomness for its executor ({@link RunJsJob.clock}). */
export interface RunJsJobClock {
  seed: number
  /** The clock readings the journal recorded, in order: a resumed program gets them again. */
  times: readonly number[]
  /** The program read the clock and got `time`: the host journals it (or checks it against the record). */
  read(time: number): void
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
  /**
   * Lets the program wait for a person: a host function that throws `RunJsSuspension` (a tool that
   * asks) parks the program and the run ends with {@link RunJsResult.suspended}. Its host calls are
   * journaled, and `Date.now`, `new Date()` and `Math.random` come from the journal too. Off, such a
   * call fails with `SuspendError`.
   */
  suspendable?: boolean | RunJsJournalLimits
  /** Resumes a suspended run: the same program, its journal and the answer (implies `suspendable`). */
  resume?: RunJsResume
}

/** Bounds of a run's journal. Past either, nothing more is recorded and the program can no longer ask. */
export interface RunJsJournalLimits {
  /** Host calls recorded (default 10,000). */
  maxCalls?: number
  /** UTF-8 bytes of arguments' fingerprints and answers recorded (default 16 MiB). */
  maxBytes?: number
}

/** One recorded host call: its name, its arguments' fingerprint and its answer. Plain JSON data. */
export interface RunJsJournalCall {
  /** `vfs.write`, `external_ask_user`, `Date.now` … */
  call: string
  /** The arguments' JSON when short, else their length and hash: a replay must match it. */
  args: string
  answer?: { text: string } | { bytes: string } | { json: string } | { none: true } | { error: GuestError }
  /** The call asked a person this (what the host function's `RunJsSuspension` carried). */
  asked?: unknown
}

/** A suspended run's journal: JSON data the caller keeps durably and passes back to resume. */
export interface RunJsJournal {
  v: 1
  /** Seed of the program's `Math.random`. */
  seed: number
  calls: RunJsJournalCall[]
  /** Index in {@link calls} of the call that waits for the answer. */
  waiting?: number
}

/**
 * The answer a suspended call gets: a value (its result, JSON), an error (it throws in the program),
 * or `retry` (the host function runs again, live: an approved call).
 */
export type RunJsResumeAnswer = { value: unknown } | { error: GuestError } | { retry: true }

/** How to resume a suspended run. */
export interface RunJsResume {
  journal: RunJsJournal
  answer: RunJsResumeAnswer
}

/** What a suspended run waits for. */
export interface RunJsSuspended {
  /** What the call asked (the `request` of the host function's `RunJsSuspension`). */
  request: unknown
  /** The call that asked: `external_ask_user`, `vfs.write` … */
  call: string
  /** Keep it (durably) and pass it back in {@link RunOptions.resume}. */
  journal: RunJsJournal
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
  /** The program is parked on a call that waits for a person (`success` is false, `error.name` 'SuspendedError'). */
  suspended?: RunJsSuspended
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
