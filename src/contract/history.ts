/**
 * The history part of the store contract: an optional capability ({@link StoreHistory}) a store
 * offers by keeping, in the same transaction as each commit, the {@link CommitRecord} the workspace
 * hands it. The workspace computes everything a record holds (it knows what each path held before:
 * the batch's expectations guarantee it), so a store only appends rows and stores before-images
 * under their hash; it never reads content to write history.
 *
 * Fallback: a store without `history` ignores the record (old adapters never see it) and keeps no
 * history; the workspace then answers `history()` with nothing and refuses to read the past, to
 * revert or to branch at an older version (VfsError EINVAL, "this store keeps no history").
 */

/** One path a commit changed, as the workspace describes it to the store. */
export interface ChangeRecord {
  path: string
  /** `put` writes an entry (file or directory); `delete` removes it. A move is a delete and a put. */
  op: 'put' | 'delete'
  /** Kind of the entry after a put, or of the entry removed by a delete (the store's `EntryKind`, spelled out: store.ts imports this file). */
  kind: 'file' | 'dir'
  /** Version the path held before the commit; 0 when it held nothing. */
  versionBefore: number
  /** SHA-256 (hex) of the file content before; absent when the path held no file. */
  hashBefore?: string
  /**
   * SHA-256 (hex) of the file content put; absent for deletes and directories. The workspace does
   * not compute it on the write path (records it writes leave it out): it is the next change's
   * `hashBefore`, or the hash of what the path holds now, and the workspace fills it in when
   * history is read. Rows written before that, or by other writers, may hold it; stores keep it as given.
   */
  hashAfter?: string
  /** Bytes before (0 when nothing or a directory) and after (0 for deletes and directories). */
  sizeBefore: number
  size: number
  /** Who made the change: the writer's tag as JSON text (see the workspace's `ChangeActor`); absent when untagged. */
  actor?: string
}

/** Content-addressed bytes: a before-image, stored once per (namespace, scope, hash). */
export interface HistoryBlob {
  hash: string
  data: Uint8Array
}

/**
 * What a commit adds to history, passed as the last argument of {@link VfsStore.commit}. The store
 * writes it atomically with the batch (both or neither) and stamps every change with the commit's
 * new version. `blobs` holds the before-image of every change with a `hashBefore`; a blob whose hash
 * the scope already holds is skipped, so identical content is stored once.
 */
export interface CommitRecord {
  /** Milliseconds since the epoch. */
  time: number
  changes: ChangeRecord[]
  blobs: HistoryBlob[]
}

/** A change as stored: the record plus the commit's version and time. */
export interface StoredChange extends ChangeRecord {
  version: number
  time: number
}

/** Which changes to read. Bounds are versions; both optional. */
export interface StoreHistoryQuery {
  /** Only changes of commits with a version greater than this. */
  after?: number
  /** Only changes of commits with a version at most this. */
  upTo?: number
  /** Only changes to this exact path. */
  path?: string
  /** At most this many changes (the oldest ones that match). */
  limit?: number
}

/** What a scope's history holds, for retention reports and the storage-overhead benchmark. */
export interface HistoryUsage {
  changes: number
  blobs: number
  /** Bytes of before-images plus an estimate of the change rows. */
  bytes: number
}

/** The optional history capability of a {@link VfsStore}. Every method must be safe to call concurrently with commits. */
export interface StoreHistory {
  /** Changes of a scope, ordered by version, then by path. Reading history never loads the scope. */
  changes(namespace: string, scope: string, query?: StoreHistoryQuery): Promise<StoredChange[]>
  /** The before-images with these hashes that the scope holds (a missing hash is simply absent from the map). */
  blobs(namespace: string, scope: string, hashes: readonly string[]): Promise<Map<string, Uint8Array>>
  /** The smallest version with a recorded change, or undefined when the scope has none. */
  oldest(namespace: string, scope: string): Promise<number | undefined>
  /**
   * Drops the changes of commits up to `upTo` (inclusive) and every blob no remaining change needs,
   * atomically. Returns what it removed.
   */
  prune(namespace: string, scope: string, upTo: number): Promise<{ changes: number; blobs: number }>
  usage(namespace: string, scope: string): Promise<HistoryUsage>
}

/** Rough bytes of one change row besides its blob (paths, hashes, numbers), for {@link HistoryUsage.bytes}. */
export function changeRowBytes(change: ChangeRecord): number {
  return 48 + change.path.length + (change.hashBefore ? 64 : 0) + (change.hashAfter ? 64 : 0) + (change.actor?.length ?? 0)
}

/** True when a stored change matches a query (for adapters that filter in memory). */
export function changeMatches(change: StoredChange, query: StoreHistoryQuery = {}): boolean {
  if (query.after !== undefined && change.version <= query.after) return false
  if (query.upTo !== undefined && change.version > query.upTo) return false
  return query.path === undefined || change.path === query.path
}

/** The stored rows of a commit's record, stamped with its version and time. */
export function storedChanges(record: CommitRecord, version: number): StoredChange[] {
  return record.changes.map(c => ({ ...c, version, time: record.time }))
}

/** Hashes of the before-images that `changes` still need (what prune keeps). */
export function neededBlobs(changes: Iterable<ChangeRecord>): Set<string> {
  const out = new Set<string>()
  for (const c of changes) if (c.hashBefore) out.add(c.hashBefore)
  return out
}

/**
 * Stores call this inside the commit, after the checks: a directory put expecting nothing also
 * accepts a directory already there (see `Expectation`), which the writer may not have seen, so
 * the record's `versionBefore` of directory puts comes from the directory the store held (`held`).
 * Only a directory: a held file such a put replaces was named by its expectation, so the record
 * already says what was there; and a branch's whiteout (a file entry for a path the branch removed)
 * means the path did not exist, so its version must not become the put's `versionBefore`.
 */
export function recordHeldDirectories(
  record: CommitRecord | undefined,
  held: (path: string) => { version: number; kind: 'file' | 'dir' } | undefined,
): void {
  if (!record) return
  for (const c of record.changes)
    if (c.op === 'put' && c.kind === 'dir' && c.versionBefore === 0) {
      const entry = held(c.path)
      c.versionBefore = entry?.kind === 'dir' ? entry.version : 0
    }
}
