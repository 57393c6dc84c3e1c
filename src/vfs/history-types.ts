import type { EntryKind } from '../contract/store.js'
import type { Vfs } from './types.js'

/**
 * The public vocabulary of a workspace's history: who changed what (`FileChange`, `ChangeActor`),
 * the queries and diffs over it, revert, retention and branches (`VersionedVfs`, `VfsBranch`).
 * Versions are the scope's commit versions (`VfsStat.version`): every commit has one, and
 * "the workspace at version V" is what it held right after the commit of version V.
 */

/**
 * Who made a change: an opaque tag the caller defines, recorded with every change it writes and
 * handed back unchanged, e.g. `'api'` or `{ kind: 'execution', id: 'e1', toolCallId: 't3' }`. The
 * workspace knows nothing of what it means. Attach it with `withActor(vfs, actor)`; at most 1 KB
 * as JSON.
 */
export type ChangeActor = string | { readonly [key: string]: string | number | boolean | null }

/**
 * One path changed by one commit: what `onChange` reports for each commit (in `changes`) and what
 * history is made of. A move shows as a delete of the old path and a put of the new one in one commit.
 */
export interface FileChange {
  path: string
  op: 'put' | 'delete'
  /** Kind after a put, or of the entry a delete removed. */
  kind: EntryKind
  /** Version the path held before; 0 when it held nothing (a put that creates). */
  versionBefore: number
  /** The commit's version. */
  versionAfter: number
  /** SHA-256 (hex) of the file content before and after, when there was / is file content. */
  hashBefore?: string
  hashAfter?: string
  /** Bytes before and after (0 for directories and for what is absent). */
  sizeBefore: number
  size: number
  /** Guessed from the file name for files; absent for directories. */
  mediaType?: string
  actor?: ChangeActor
  /** Milliseconds since the epoch, when the commit was made. */
  time: number
}

/** One commit of history with every path it changed. */
export interface HistoryEntry {
  version: number
  time: number
  changes: FileChange[]
}

/** Which part of history to read. */
export interface HistoryQuery {
  /** Only commits with a version greater than this (exclusive): "what changed since V". */
  after?: number
  /** Only commits with a version at most this (inclusive). */
  upTo?: number
  /** Only changes to this path, or (with a trailing `/`) to anything below it. */
  path?: string
  /** Only changes whose actor this returns true for. */
  actor?: (actor: ChangeActor | undefined) => boolean
  /** At most this many commits (the oldest that match). */
  limit?: number
}

/** What happened to one path between two points. */
export interface DiffEntry {
  path: string
  status: 'added' | 'changed' | 'deleted' | 'moved'
  /** For `moved`: the path the content had before. */
  from?: string
  kind: EntryKind
  /** Bytes at each end (absent at the end where the entry does not exist). */
  sizeBefore?: number
  sizeAfter?: number
  /** True when either side is not valid UTF-8 text: sizes and hashes only, no patch. */
  binary: boolean
  /** A unified line diff (the `diff` package's `formatPatch`), for text files when patches are asked for. */
  patch?: string
  /** Lines added and removed, for text files with a line diff. */
  added?: number
  removed?: number
  /** Why a text file has no line diff: it was past a bound of {@link DiffLimits}. Sizes and hashes say what changed. */
  omitted?: DiffOmitted
  /** SHA-256 (hex) of each side's content, for a file shown without a line diff (binary or `omitted`). */
  hashBefore?: string
  hashAfter?: string
}

/** A text file listed without its line diff, and why. */
export interface DiffOmitted {
  /** `size`: a side is over `maxBytes`; `edits`: over `maxEditLength`; `time`: over `fileTimeoutMs`; `budget`: the diff's `budgetMs` was spent. */
  reason: 'size' | 'edits' | 'time' | 'budget'
  /** The same in words, e.g. "too large to show line by line (over the size bound)". */
  message: string
}

/**
 * Bounds on the line diffs of one diff (defaults in parentheses; see docs/limits.md). Past one, a
 * file is listed with sizes, hashes and `omitted` instead of a hang: model- and request-chosen
 * inputs must not freeze a shared host. Line diffs of a whole process also take turns (one at a
 * time, resting after each turn as long as it ran), so concurrent diffs hardly stall other work.
 */
export interface DiffLimits {
  /** Bytes of either side above which a file gets no line diff (256 KiB). */
  maxBytes?: number
  /** Lines added + removed above which a file's line diff is abandoned (1,000). Holds without a clock. */
  maxEditLength?: number
  /** Milliseconds one file's line diff may run, synchronously (50). */
  fileTimeoutMs?: number
  /** Milliseconds all line diffs of one diff may take together; later files get none (2,000). */
  budgetMs?: number
}

/** The difference between two points of a workspace (or a branch and its base), sorted by path. */
export interface VfsDiff {
  from: number
  to: number
  entries: DiffEntry[]
}

export interface DiffOptions extends DiffLimits {
  /** Compute line patches for text files. Default true. */
  patches?: boolean
  /** Lines of context in patches. Default 3. */
  context?: number
  /** Only paths equal to or below one of these. */
  paths?: string[]
}

/**
 * What to undo: every change of the commits in `(after, upTo]` (optionally only those whose actor
 * `actor` accepts, e.g. one execution's), or exactly the given changes (redo: the changes a revert
 * returned). Each path goes back to what it held before the first undone change to it.
 */
export type RevertTarget =
  | { after: number; upTo?: number; actor?: (actor: ChangeActor | undefined) => boolean; paths?: string[] }
  | { changes: readonly FileChange[] }

/** Why a revert or a branch commit wrote nothing for a path. */
export interface VfsConflict {
  path: string
  /** Version the operation needed the path to hold (0: nothing). */
  expected: number
  /** Version the workspace holds now (0: nothing). */
  found: number
  message: string
  /** Set when a branch commit tried to merge the path three ways (both sides changed it) and could not. */
  merge?: MergeConflict
}

/**
 * Why a path changed on both sides did not merge, and, for overlapping edits, the hunks that
 * overlap: what the base (the branch's start), ours (the workspace now) and theirs (the branch)
 * hold there, so a client can show them. Whole files: `readAt(path, baseVersion)` and reads.
 */
export interface MergeConflict {
  /**
   * `overlap`: edits to the same or adjacent lines; `binary`: a side is not UTF-8; `delete`: deleted
   * (or moved away) on one side, changed on the other; `size`, `edits`, `time`, `budget`: past a
   * bound of {@link DiffLimits} (too large, too many changed lines close together, out of time).
   */
  reason: 'overlap' | 'binary' | 'delete' | 'size' | 'edits' | 'time' | 'budget'
  message: string
  /** For `overlap`: the overlapping hunks (at most 50, their texts at most 64 KiB per conflict and 256 KiB over one commit's conflicts). */
  hunks?: MergeHunk[]
}

/** One overlapping hunk: each side's lines there (`line` is 1-based, in that side's file). */
export interface MergeHunk {
  base: { line: number; text: string }
  ours: { line: number; text: string }
  theirs: { line: number; text: string }
}

/**
 * The outcome of a revert or a branch commit: one group commit with every change (`ok`), or
 * nothing written and the conflicts listed.
 */
export type LandResult = { ok: true; version: number; changes: FileChange[] } | { ok: false; conflicts: VfsConflict[] }

export interface RevertOptions {
  /** Tag of the revert's own changes (default: the actor of the view it is called on, if any). */
  actor?: ChangeActor
}

/** How a branch commit lands (see {@link VfsBranch.commit}). */
export interface CommitOptions extends RevertOptions {
  /**
   * Merge a text file changed on both sides three ways when the edits do not overlap (default true);
   * `false`: any path changed on both sides conflicts. Bounded like a diff (`limits`).
   */
  merge?: boolean
  /** Bounds of the line diffs a merge runs on (DIFF_LIMITS by default, each capped). */
  limits?: DiffLimits
}

/**
 * How much history to keep; `gc` drops only what is outside every keep rule given, then the oldest
 * versions past `maxBytes`, and never what a live branch still reads. With no rule, everything is kept.
 */
export interface Retention {
  /**
   * At most this many bytes of history (as `usage().historyBytes` counts them): the oldest versions
   * go first, even those a keep rule would keep (never a live branch's base).
   */
  maxBytes?: number
  /** At most this many commits dropped by one call (a bounded pass); `GcResult.more` says whether more is due. */
  maxCommits?: number
  /** Keep the points of the last N commits rebuildable. */
  keepVersions?: number
  /** Keep the points of the last N days rebuildable (by commit time). */
  keepDays?: number
  /** Keep these versions rebuildable (checkpoints, tags), and everything after the oldest of them. */
  pins?: readonly number[]
  /** Milliseconds since the epoch to measure `keepDays` from. Default `Date.now()`. */
  now?: number
}

export interface GcResult {
  /** The oldest version that can still be rebuilt after gc. */
  horizon: number
  removedChanges: number
  removedBlobs: number
  /** True when `maxCommits` stopped this call before all the policy drops. */
  more: boolean
}

export interface BranchOptions {
  /** Reopenable name, unique among this workspace's branches (letters, digits, `.`, `_`, `-`). Default: a random id. */
  name?: string
  /** Version of this workspace the branch starts from (a past one forks history). Default: the current one. */
  at?: number
}

/** A branch as listed by {@link VersionedVfs.branches}. */
export interface BranchInfo {
  name: string
  /** The scope the branch's own writes are stored in. */
  scope: string
  baseVersion: number
}

/** A workspace with history: what `openVfs` returns, and what a branch is. */
export interface VersionedVfs extends Vfs {
  /** The latest version this instance knows to be durable (its last commit or load). */
  readonly version: number
  /** Commits of this workspace, oldest first, each with the paths it changed. */
  history(query?: HistoryQuery): Promise<HistoryEntry[]>
  /** A file's content as it was right after the commit of `version`; ENOENT when it did not exist then. */
  readAt(path: string, version: number): Promise<Uint8Array>
  readAt(path: string, version: number, encoding: 'utf8' | 'utf-8'): Promise<string>
  /** A read-only workspace as it was at `version` (writes fail with EACCES). */
  at(version: number): Promise<Vfs>
  /** What changed from version `from` to version `to` (default: now). */
  diff(from: number, to?: number, options?: DiffOptions): Promise<VfsDiff>
  /** Undoes changes as one group commit, or writes nothing and lists the conflicts. Redo: `revert({ changes: result.changes })`. */
  revert(target: RevertTarget, options?: RevertOptions): Promise<LandResult>
  /** Drops history outside the retention policy. */
  gc(retention: Retention): Promise<GcResult>
  /** A copy-on-write branch of this workspace at `options.at` (default now), persisted in its own scope. O(1). */
  branch(options?: BranchOptions): Promise<VfsBranch>
  /** Reopens a branch made earlier (after a restart too). ENOENT when there is none by that name. */
  openBranch(name: string): Promise<VfsBranch>
  /** The live branches of this workspace (not of its branches). */
  branches(): Promise<BranchInfo[]>
}

/**
 * A copy-on-write branch: reads its own writes and, below them, its base as it was at
 * `baseVersion` (even after the base moves on). Versions of a branch continue from `baseVersion`.
 */
export interface VfsBranch extends VersionedVfs {
  readonly name: string
  readonly baseVersion: number
  /** The workspace it was branched from. */
  readonly base: VersionedVfs
  /** What the branch changed relative to its base as of `baseVersion`. */
  diffBase(options?: DiffOptions): Promise<VfsDiff>
  /**
   * Lands the branch's changes on the base as one group commit, checking that every path it
   * changed still holds, in the base, what it held at `baseVersion`; a text file changed on both
   * sides is merged three ways when the edits do not overlap (`merge: false`: it conflicts).
   * Otherwise writes nothing and returns the conflicts. After a successful commit the branch is discarded.
   */
  commit(options?: CommitOptions): Promise<LandResult>
  /** Deletes the branch's scope and closes it. Costs what the branch wrote, never the base's size. */
  discard(): Promise<void>
}
