/**
 * agent-vfs: a persistent workspace for AI agents, the same API on every JavaScript runtime.
 * The core and all five stores are in this one entry; only the store you construct does any I/O.
 */
export { openVfs } from './vfs/open.js'
export { vfsRegistry, type VfsRegistry, type VfsRegistryOptions } from './vfs/registry.js'
export { scopeRun, defaultRunRoots, type RunVfs, type RunRoot, type ScopeRunOptions } from './vfs/run-scope.js'
export { VfsError, isVfsError, type VfsErrorCode } from './contract/errors.js'
export { normalizePath, MAX_NAME_LENGTH, MAX_PATH_LENGTH } from './contract/paths.js'
export type {
  Vfs, VfsStat, VfsQuota, VfsUsage, VfsChange, FileData, WriteOptions, ReaddirOptions, RmdirOptions, GlobOptions,
  GrepOptions, GrepMatch, GrepResult, OpenVfsOptions,
} from './vfs/types.js'
export type { VfsStore, StoreOp, StoredEntry, ScopeSnapshot, EntryKind, Expectation, HeldEntry } from './contract/store.js'

export { memoryStore } from '../adapters/memory.js'
export { durableObjectStore, type DurableObjectSqlStorageLike } from '../adapters/durable-object.js'
export { d1Store, type D1Store, type D1StoreOptions, type D1DatabaseLike, type D1StatementLike } from '../adapters/d1.js'
export { indexedDbStore, type IndexedDbStoreOptions, type IndexedDbCommitMessage } from '../adapters/indexeddb.js'
export { postgresStore, type PostgresStore, type PostgresStoreOptions, type SqlClient } from '../adapters/postgres.js'

export {
  createRunJs, sanitizeToolId, variantEngine, defaultEngine, DEFAULT_LIMITS,
  type RunJs, type RunJsOptions, type RunJsLimits, type RunJsResult, type RunJsError, type RunJsTool, type RunJsToolFunction,
  type RunJsToolContext, type RunJsSchema, type RunOptions, type QuickJsEngine, type QuickJsModule, type VariantEngineOptions,
  type TypeScriptLoader, type TypeScriptStripper,
} from './run-js/index.js'

export * from './agent/index.js'
