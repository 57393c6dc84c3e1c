/**
 * agent-vfs: a persistent workspace for AI agents, the same API on every JavaScript runtime.
 * This entry is what a workspace user needs: the workspace, the five stores, run_js, the errors and
 * the shared vocabulary (paths, the store contract, the run layout). Only the store you construct
 * does any I/O. The agent runtime is `agent-vfs/agent`; Mastra bindings are `agent-vfs/mastra`.
 * Every other entry imports this one by name, so there is one core (one `VfsError`) at run time.
 */
export { openVfs } from './vfs/open.js'
export { vfsRegistry, type VfsRegistry, type VfsRegistryOptions } from './vfs/registry.js'
export { scopeRun, defaultRunRoots, type RunVfs, type RunRoot, type ScopeRunOptions } from './vfs/run-view.js'
export { restrict, type RestrictOptions } from './vfs/restrict.js'
export {
  MAX_PATTERN_LENGTH, MAX_REGEX_PROGRAM, MAX_GREP_CONTEXT, MAX_GREP_MATCHES, MAX_GREP_PATHS, WALK_CHECK_EVERY,
} from './vfs/limits.js'
export { compileGlob, escapeGlob, type CompiledGlob } from './vfs/glob.js'
export { REGEX_SYNTAX } from './vfs/regex.js'
// For layers over a workspace (a guarded view, run_js): its promise-free text read, when it has one.
export { readTextNow, textReaderOf, type ReadsTextNow } from './vfs/read-now.js'
export type {
  Vfs, VfsStat, VfsQuota, VfsUsage, VfsChange, FileData, WriteOptions, ReaddirOptions, RmdirOptions, GlobOptions,
  WalkOptions, WalkEntry, WalkResult, GrepOptions, GrepMatch, GrepResult, OpenVfsOptions,
} from './vfs/types.js'
// The ground floor: errors, paths, the store contract and the run layout.
export * from './contract/index.js'

export { memoryStore } from '../adapters/memory.js'
export { durableObjectStore, type DurableObjectSqlStorageLike } from '../adapters/durable-object.js'
export { d1Store, type D1Store, type D1StoreOptions, type D1DatabaseLike, type D1StatementLike } from '../adapters/d1.js'
export { indexedDbStore, type IndexedDbStoreOptions, type IndexedDbCommitMessage } from '../adapters/indexeddb.js'
export { postgresStore, type PostgresStore, type PostgresStoreOptions, type SqlClient } from '../adapters/postgres.js'

export {
  createRunJs, createRunner, InstancePool, resolveLimits, sanitizeToolId, variantEngine, defaultEngine, DEFAULT_LIMITS,
  type RunnerOptions, type RunJs, type RunJsOptions, type RunJsLimits, type RunJsResult, type RunJsError, type RunJsTool,
  type RunJsToolFunction, type RunJsToolContext, type RunJsSchema, type RunOptions, type QuickJsEngine, type QuickJsModule,
  type VariantEngineOptions, type TypeScriptLoader, type TypeScriptStripper, type RunJsExecutor, type RunJsJob,
} from './run-js/index.js'
export { describeGuestApi, RUN_JS_DESCRIPTION } from './run-js/index.js'
export {
  HOST_VFS_METHODS, RunQueue, runQueued, noteQueueWait, resolveRunJsCount, DEFAULT_MAX_QUEUED, runJsAbortError,
  type HostCallAnswer, type HostVfsMethod, type RunQueueSlot,
} from './run-js/index.js'
