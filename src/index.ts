/**
 * agent-vfs: a persistent workspace for AI agents, the same API on every JavaScript runtime.
 * This entry is what a workspace user needs and nothing more: the workspace, the five stores, run_js,
 * the errors and the shared vocabulary (paths, the store contract, the run layout). Only the store you
 * construct does any I/O. The agent runtime is `agent-vfs/agent`; Mastra bindings are `agent-vfs/mastra`.
 * Every other entry imports this one by name, so there is one core (one `VfsError`) at run time; what
 * those entries need beyond this API is `agent-vfs/internal` (src/internal.ts, no semver promise).
 * May import: everything in src/contract, src/vfs, src/run-js and adapters/ (never another entry).
 */
// The workspace.
export { openVfs } from './vfs/open.js'
export { vfsRegistry, type VfsRegistry, type VfsRegistryOptions } from './vfs/registry.js'
export { scopeRun, defaultRunRoots, type RunVfs, type RunRoot, type ScopeRunOptions } from './vfs/run-view.js'
export { restrict, type RestrictOptions } from './vfs/restrict.js'
export { withActor } from './vfs/actor.js'
export { DIFF_LIMITS } from './vfs/diff-bounds.js'
export type {
  ChangeActor,
  FileChange,
  HistoryEntry,
  HistoryQuery,
  DiffEntry,
  DiffOmitted,
  DiffLimits,
  VfsDiff,
  DiffOptions,
  RevertTarget,
  RevertOptions,
  VfsConflict,
  MergeConflict,
  MergeHunk,
  CommitOptions,
  LandResult,
  Retention,
  GcResult,
  BranchOptions,
  BranchInfo,
  VersionedVfs,
  VfsBranch,
} from './vfs/history-types.js'
export type {
  Vfs,
  VfsStat,
  VfsQuota,
  VfsUsage,
  VfsChange,
  FileData,
  WriteOptions,
  ReaddirOptions,
  RmdirOptions,
  GlobOptions,
  WalkOptions,
  WalkEntry,
  WalkResult,
  GrepOptions,
  GrepMatch,
  GrepResult,
  OpenVfsOptions,
} from './vfs/types.js'

// The ground floor: errors, paths, the store contract (to write a store) and the run layout.
export { VfsError, isVfsError, type VfsErrorCode } from './contract/errors.js'
export { normalizePath, parentOf, baseName, joinPath, isWithin, ancestorsOf, MAX_PATH_LENGTH, MAX_NAME_LENGTH } from './contract/paths.js'
export type { VfsStore, StoreOp, StoreWrite, StoredEntry, ScopeSnapshot, EntryKind, Expectation } from './contract/store.js'
export type {
  StoreHistory,
  StoreHistoryQuery,
  CommitRecord,
  ChangeRecord,
  StoredChange,
  HistoryBlob,
  HistoryUsage,
} from './contract/history.js'
export {
  READ_ONLY_ROOTS,
  WRITABLE_ROOTS,
  RUN_ROOTS,
  STATE_ROOT,
  RUN_JS_ARCHIVE_NAME,
  RUN_JS_ARCHIVE_DIR,
  type RunRootName,
} from './contract/layout.js'

// The stores.
export { memoryStore, type MemoryStoreOptions } from '../adapters/memory.js'
export { durableObjectStore, type DurableObjectSqlStorageLike } from '../adapters/durable-object.js'
export { d1Store, type D1Store, type D1StoreOptions, type D1DatabaseLike, type D1StatementLike } from '../adapters/d1.js'
export { indexedDbStore, type IndexedDbStoreOptions, type IndexedDbCommitMessage } from '../adapters/indexeddb.js'
export { postgresStore, type PostgresStore, type PostgresStoreOptions, type SqlClient } from '../adapters/postgres.js'

// run_js.
export {
  createRunJs,
  sanitizeToolId,
  variantEngine,
  describeGuestApi,
  RUN_JS_DESCRIPTION,
  DEFAULT_LIMITS,
  DEFAULT_JOURNAL_LIMITS,
  RunJsSuspension,
  isRunJsSuspension,
  type RunJs,
  type RunJsOptions,
  type RunJsLimits,
  type RunJsImports,
  type RunJsFetch,
  type RunJsFetchRule,
  type RunJsResult,
  type RunJsError,
  type RunJsTool,
  type RunJsToolFunction,
  type RunJsToolContext,
  type RunJsSchema,
  type RunOptions,
  type QuickJsEngine,
  type QuickJsModule,
  type VariantEngineOptions,
  type TypeScriptLoader,
  type TypeScriptStripper,
  type RunJsExecutor,
  type RunJsJob,
  type RunJsJobClock,
  type HostCallAnswer,
  type RunJsJournal,
  type RunJsJournalCall,
  type RunJsJournalLimits,
  type RunJsResume,
  type RunJsResumeAnswer,
  type RunJsSuspended,
} from './run-js/index.js'
