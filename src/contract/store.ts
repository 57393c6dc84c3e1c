import { VfsError } from './errors.js'
import type { CommitRecord, StoreHistory } from './history.js'

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
 * What a writer expects a path to hold, checked before a batch writes anything:
 * - a number `n > 0`: an entry whose version is `n`;
 * - `0`: nothing, except that a put of a directory also accepts a directory already there
 *   (creating a directory is idempotent, so two writers creating one directory do not conflict);
 * - `'dir'`: a directory, of any version (directories are re-created freely, so the workspace
 *   checks that a directory is still a directory, and what lies below it with `expectedBelow`);
 * - `null`: anything (the core never sends it; it is for callers that want a blind write).
 */
export type Expectation = number | 'dir' | null

/**
 * One operation of an atomic batch. When an `expectedVersion` (see {@link Expectation}) does not
 * match, the whole batch fails with a VfsError of code ECONFLICT and nothing is written.
 *
 * A `check` op writes nothing: it only makes the batch depend on the path (the workspace checks
 * the directory a new entry goes into, and the files a copy reads).
 *
 * `expectedBelow`, when set, is the number of entries the writer believes lie strictly below the
 * path before the batch; another number fails the batch with ECONFLICT. With it a batch that
 * removes, moves or replaces a directory (or copies one) depends on the directory's whole subtree,
 * so an entry another writer added below it is never left behind or silently dropped.
 */
export type StoreOp =
  | {
      op: 'put'
      path: string
      kind: EntryKind
      data: Uint8Array
      mtime: number
      ctime: number
      expectedVersion: Expectation
      expectedBelow?: number
    }
  | { op: 'delete'; path: string; expectedVersion: Expectation; expectedBelow?: number }
  | { op: 'check'; path: string; expectedVersion: Exclude<Expectation, null>; expectedBelow?: number }

/** The ops of a batch that write something (puts and deletes, not checks). */
export type StoreWrite = Exclude<StoreOp, { op: 'check' }>

/** A backend for workspaces. Every method must be safe to call concurrently. */
export interface VfsStore {
  /** Short name used in messages and benchmarks, e.g. `memory`, `indexeddb`. */
  readonly kind: string
  /** Loads every entry of a scope with its content. */
  load(namespace: string, scope: string): Promise<ScopeSnapshot>
  /**
   * Optional: loads several scopes of one namespace at once, in the order asked, each exactly as
   * {@link VfsStore.load} would give it (an unknown scope: version 0, no entries). A backend that can
   * answer in one round trip implements it (Postgres: one SELECT); callers go through
   * {@link loadScopes}, which falls back to one `load` per scope.
   */
  loadMany?(namespace: string, scopes: readonly string[]): Promise<ScopeSnapshot[]>
  /**
   * Applies a batch atomically: all operations or none. Assigns the scope a new version (previous
   * + 1), stamps it on every entry the batch puts, and returns it. Throws VfsError ECONFLICT when
   * an `expectedVersion` or an `expectedBelow` does not match (ops on one path appear at most
   * once per batch). `check` ops write nothing.
   *
   * `record`, when given to a store with {@link VfsStore.history}, is written in the same
   * transaction (see `CommitRecord` in history.ts); a store without history ignores it.
   */
  commit(namespace: string, scope: string, ops: StoreOp[], record?: CommitRecord): Promise<number>
  /**
   * Removes every entry of a scope. The scope's version is kept (as a tombstone that
   * {@link VfsStore.listScopes} does not list and {@link VfsStore.load} reports with no entries),
   * so versions never repeat for a scope name and a stale compare-and-swap cannot match again.
   * The scope's history (changes and blobs) goes with it.
   */
  deleteScope(namespace: string, scope: string): Promise<void>
  /** Names of the scopes in a namespace that hold at least one entry or a version (deleted scopes excluded). */
  listScopes(namespace: string): Promise<string[]>
  /**
   * Optional: calls `listener` with the new scope version whenever another instance (another tab,
   * another connection) commits to the scope. Returns an unsubscribe function.
   */
  watch?(namespace: string, scope: string, listener: (version: number) => void): () => void
  /**
   * Optional: the change history the store keeps with each commit (history.ts). Without it the
   * workspace keeps no history (see the fallback there).
   */
  readonly history?: StoreHistory
  /** Optional: releases connections or handles the store owns. */
  close?(): Promise<void>
}

/** Loads `scopes` with the store's {@link VfsStore.loadMany} when it has one, else one {@link VfsStore.load} each (in parallel). */
export function loadScopes(store: VfsStore, namespace: string, scopes: readonly string[]): Promise<ScopeSnapshot[]> {
  if (scopes.length === 0) return Promise.resolve([])
  if (store.loadMany) return store.loadMany(namespace, scopes)
  return Promise.all(scopes.map(scope => store.load(namespace, scope)))
}

/** What a store holds at a path, as far as expectations go; `undefined` when it holds nothing. */
export interface HeldEntry {
  version: number
  kind: EntryKind
}

/** True when `held` meets the op's expectation (see {@link Expectation}). */
export function expectationMet(op: StoreOp, held: HeldEntry | undefined): boolean {
  const expected = op.expectedVersion
  if (expected === null) return true
  if (expected === 'dir') return held?.kind === 'dir'
  if (expected === 0 && op.op === 'put' && op.kind === 'dir') return held === undefined || held.kind === 'dir'
  return (held?.version ?? 0) === expected
}

/** The conflict error adapters throw when an expectation does not match. */
export function conflictError(
  path: string,
  expected: Expectation,
  held: HeldEntry | number | undefined,
  options?: { cause?: unknown },
): VfsError {
  const h = typeof held === 'number' ? (held === 0 ? undefined : { version: held, kind: 'file' as const }) : held
  const has =
    h === undefined
      ? 'nothing'
      : h.kind === 'dir' && expected === 'dir'
        ? `a directory`
        : h.kind === 'dir'
          ? `a directory (version ${h.version})`
          : `version ${h.version}`
  const wanted = expected === 'dir' ? 'a directory' : expected === 0 ? 'nothing' : `version ${expected}`
  return new VfsError('ECONFLICT', path, `expected ${wanted}, the store has ${has}`, options)
}

/**
 * Checks every op's expectation against what the store holds (`entryOf`: undefined when absent)
 * and throws {@link conflictError} for the first mismatch. Adapters call it inside their
 * transaction, before writing.
 */
export function checkExpectedVersions(ops: readonly StoreOp[], entryOf: (path: string) => HeldEntry | undefined): void {
  for (const op of ops) {
    if (op.expectedVersion === null) continue
    const held = entryOf(op.path)
    if (!expectationMet(op, held)) throw conflictError(op.path, op.expectedVersion, held)
  }
}

/** The conflict error adapters throw when the number of entries below a path does not match. */
export function subtreeConflictError(path: string, expected: number, has: number): VfsError {
  return new VfsError(
    'ECONFLICT',
    path,
    `expected ${expected} entries below this directory, the store has ${has} (another writer added or removed some)`,
  )
}

/** Ops that carry an `expectedBelow`. Adapters count the entries below each (see {@link subtreeRange}). */
export function subtreeChecks(ops: readonly StoreOp[]): Array<{ path: string; expected: number }> {
  const out: Array<{ path: string; expected: number }> = []
  for (const op of ops) if (op.expectedBelow !== undefined) out.push({ path: op.path, expected: op.expectedBelow })
  return out
}

/**
 * Checks every `expectedBelow` against `countBelow` (entries strictly below the path, before the
 * batch) and throws {@link subtreeConflictError} for the first mismatch.
 */
export function checkSubtrees(ops: readonly StoreOp[], countBelow: (path: string) => number): void {
  for (const { path, expected } of subtreeChecks(ops)) {
    const has = countBelow(path)
    if (has !== expected) throw subtreeConflictError(path, expected, has)
  }
}

/**
 * The half-open key range `[from, to)` that holds exactly the paths strictly below `path`, for
 * stores that compare strings by UTF-16 code unit or UTF-8 byte (IndexedDB, SQLite): `'/'` is
 * U+002F and `'0'` U+0030, so every path starting with `path + '/'` sorts between the two.
 */
export function subtreeRange(path: string): { prefix: string; from: string; to: string } {
  const prefix = path === '/' ? '/' : path + '/'
  return { prefix, from: prefix, to: prefix.slice(0, -1) + '0' }
}

export { VfsError }
