/**
 * `agent-vfs/internal`: what the package's own secondary entries (agent, mastra, session, worker,
 * run-js/*) need from the core beyond the user API of `agent-vfs`. INTERNAL: no semver promise, names
 * may change in any release; apps import `agent-vfs` and its documented entries (docs/internal.md).
 *
 * It exists so that the root stays the user API while there is still one core at run time: in the
 * build, dist/index.js carries these bindings under hidden names and dist/internal.js re-exports them
 * from `agent-vfs` (scripts/build.mjs), so every class here is the root's own (`instanceof` holds).
 * May import: the core (src/contract, src/vfs, src/run-js, adapters/), never another entry.
 */
// Workspace internals: limits and helpers that layers over a workspace share with src/vfs.
export {
  MAX_PATTERN_LENGTH,
  MAX_REGEX_PROGRAM,
  MAX_GREP_CONTEXT,
  MAX_GREP_MATCHES,
  MAX_GREP_PATHS,
  WALK_CHECK_EVERY,
} from './vfs/limits.js'
export { compileGlob, escapeGlob, type CompiledGlob } from './vfs/glob.js'
export { REGEX_SYNTAX } from './vfs/regex.js'
export { provideRegexEngine, type RegexEngine } from './vfs/regex-engine.js'
// For layers over a workspace (a guarded view, run_js): its promise-free text read, when it has one.
export { readTextNow, textReaderOf, type ReadsTextNow } from './vfs/read-now.js'
// A view that sends what is below mount points to other workspaces (an execution's proposal: its files in a branch, /state not).
export { mount } from './vfs/mount.js'

// Store internals: what adapters and the session's event log use to keep the contract.
export {
  loadScopes,
  expectationMet,
  conflictError,
  checkExpectedVersions,
  subtreeConflictError,
  subtreeChecks,
  checkSubtrees,
  subtreeRange,
  type HeldEntry,
} from './contract/store.js'

// run_js for its other hosts: the runner behind the Mastra transport, and an executor's building blocks
// (the queue under the names an executor reads them by, the run's abort error, the host-call methods).
export { createRunner, type RunnerOptions } from './run-js/index.js'
export { InstancePool } from './run-js/engine/pool.js'
export { resolveLimits } from './run-js/engine/limits.js'
export { defaultEngine } from './run-js/engine/engine.js'
export { HOST_VFS_METHODS, type HostVfsMethod } from './run-js/host/host-calls.js'
export {
  RunQueue,
  runQueued,
  noteWait as noteQueueWait,
  resolveCount as resolveRunJsCount,
  DEFAULT_MAX_QUEUED,
  type Slot as RunQueueSlot,
} from './run-js/host/run-queue.js'
export { abortError as runJsAbortError } from './run-js/host/result.js'

// For the session host's forks: a branch that outlives its base, or is copied from another store.
export { createDetachedBranch, detachBranch, importBranchEntries, snapshotOf } from './vfs/branch-detach.js'

// run_js's capability fetch (its allow-list, address rule, budgets and redaction), for agent-vfs/bash's curl.
export { fetchTool as capabilityFetch, type FetchAnswer } from './run-js/host/fetch.js'
