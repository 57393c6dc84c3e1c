import { VfsError } from './errors.js'

/**
 * The contract between the workspace core and a backend. An adapter knows only keys
 * `(namespace, scope, path)`, bytes and a little metadata; everything else (the tree, journaling,
 * permissions) lives in the core. A new backend is one short file implementing {@link VfsStore}.
 */

/** What kind of entry a path holds. */
export type EntryKind = 'file' | 'dir'

/** One stored entry. Directories are stored too, so empty directories survive a reload. */
export interface StoredEntry {
  path: string
  kind: EntryKind
  /** File content; empty for directories. */
  data: Uint8Array
  /** The scope version of the commit that last wrote this entry (see {@link VfsStore.commit}). */
  version: number
  /** Milliseconds since the epoch. */
  mtime: number
  ctime: number
}

/** A scope as loaded: its current version and every entry in it. */
export interface ScopeSnapshot {
  /** Version of the last commit to this scope; 0 for a scope never written. */
  version: number
  entries: StoredEntry[]
}

/**
 * One operation of an atomic batch. `expectedVersion` is the version the writer believes the
 * store holds for the path (0: the path must not exist); when it does not match, the whole batch
 * fails with a VfsError of code ECONFLICT and nothing is written. `null` skips the check: the core
 * uses it for directories, whose creation and removal are idempotent.
 */
export type StoreOp =
  | {
      op: 'put'
      path: string
      kind: EntryKind
      data: Uint8Array
      mtime: number
      ctime: number
      expectedVersion: number | null
    }
  | { op: 'delete'; path: string; expectedVersion: number | null }

/** A backend for workspaces. Every method must be safe to call concurrently. */
export interface VfsStore {
  /** Short name used in messages and benchmarks, e.g. `memory`, `indexeddb`. */
  readonly kind: string
  /** Loads every entry of a scope with its content. */
  load(namespace: string, scope: string): Promise<ScopeSnapshot>
  /**
   * Applies a batch atomically: all operations or none. Assigns the scope a new version (previous
   * + 1), stamps it on every entry the batch puts, and returns it. Throws VfsError ECONFLICT when
   * an `expectedVersion` does not match (ops on one path appear at most once per batch).
   */
  commit(namespace: string, scope: string, ops: StoreOp[]): Promise<number>
  /** Removes every entry of a scope, and the scope's version. */
  deleteScope(namespace: string, scope: string): Promise<void>
  /** Names of the scopes in a namespace that hold at least one entry or a version. */
  listScopes(namespace: string): Promise<string[]>
  /**
   * Optional: calls `listener` with the new scope version whenever another instance (another tab,
   * another connection) commits to the scope. Returns an unsubscribe function.
   */
  watch?(namespace: string, scope: string, listener: (version: number) => void): () => void
  /** Optional: releases connections or handles the store owns. */
  close?(): Promise<void>
}

/** The conflict error adapters throw when an expected version does not match. */
export function conflictError(path: string, expected: number, has: number, options?: { cause?: unknown }): VfsError {
  return new VfsError('ECONFLICT', path, `expected version ${expected}, the store has ${has}`, options)
}

/**
 * Checks every op's expected version against what the store holds (`versionOf`: 0 when absent)
 * and throws {@link conflictError} for the first mismatch. Adapters call it inside their
 * transaction, before writing.
 */
export function checkExpectedVersions(ops: readonly StoreOp[], versionOf: (path: string) => number): void {
  for (const op of ops) {
    if (op.expectedVersion === null) continue
    const has = versionOf(op.path)
    if (has !== op.expectedVersion) throw conflictError(op.path, op.expectedVersion, has)
  }
}

export { VfsError }
