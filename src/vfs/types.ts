import type { VfsStore } from '../contract/store.js'
import type { FileChange } from './history-types.js'

/** What `stat()` returns. Times are milliseconds since the epoch, so they cross JSON unchanged. */
export interface VfsStat {
  type: 'file' | 'directory'
  /** Bytes of content; 0 for directories. */
  size: number
  mtime: number
  ctime: number
  /**
   * The scope version of the commit that last wrote this entry; 0 for an entry not yet durable or
   * a directory that exists only as a parent of files. Pass it as `expectedVersion` to make a
   * write conditional on nobody having changed the file since.
   */
  version: number
  /** Guessed from the file name; `inode/directory` for directories. */
  mimeType: string
}

/** Bytes or text. Strings are stored as UTF-8. */
export type FileData = string | Uint8Array | ArrayBuffer | ArrayBufferView

export interface WriteOptions {
  /** Fail with ECONFLICT unless the file's current version is this one (0: the file must not exist). */
  expectedVersion?: number
}

export interface ReaddirOptions {
  /** List the whole subtree; names are then relative paths such as `sub/x.txt`. */
  recursive?: boolean
}

export interface RmdirOptions {
  /** Remove the directory with everything below it. Without it a non-empty directory is ENOTEMPTY. */
  recursive?: boolean
}

export interface GlobOptions {
  /** Also return directories that match. Default: files only. */
  includeDirs?: boolean
  /** Stop when this time (milliseconds since the epoch, as `Date.now()`) has passed. */
  deadline?: number
  /** Stop when this signal aborts. */
  signal?: AbortSignal
}

/**
 * Options of {@link Vfs.walk}. A walk checks its deadline and signal every `WALK_CHECK_EVERY`
 * entries and stops with `truncated: true`, so even a tree of millions of files answers in time.
 */
export interface WalkOptions extends GlobOptions {
  /** Return at most this many entries; `truncated` then says whether more matched. Default: all. */
  limit?: number
  /** Keeps only the workspace paths for which it returns true (besides matching the pattern). */
  filter?: (path: string) => boolean
}

/** One entry of a walk. */
export interface WalkEntry {
  path: string
  type: 'file' | 'directory'
  /** Bytes; 0 for directories. */
  size: number
}

/** What {@link Vfs.walk} found, sorted by path. */
export interface WalkResult {
  entries: WalkEntry[]
  /** True when `limit`, the deadline or the signal stopped the walk before it saw every entry. */
  truncated: boolean
}

export interface GrepOptions {
  /**
   * Treat the pattern as a regular expression in RE2 syntax (linear time; no backreferences, no
   * lookaround), matched against each line. Default: literal text.
   */
  regex?: boolean
  ignoreCase?: boolean
  /** Limit the search to these directories, files or glob patterns (at most `MAX_GREP_PATHS`). Default: the whole workspace. */
  paths?: string[]
  /** Stop after this many matches (default 1,000, at most `MAX_GREP_MATCHES`); `truncated` then says so. */
  maxMatches?: number
  /** Lines of context to return before and after each match (default 0, at most `MAX_GREP_CONTEXT`). */
  context?: number
  /** Stop when this time (milliseconds since the epoch, as `Date.now()`) has passed; `truncated` then says so. */
  deadline?: number
  /** Stop when this signal aborts; `truncated` then says so. */
  signal?: AbortSignal
}

export interface GrepMatch {
  path: string
  /** 1-based line number. */
  line: number
  /**
   * 1-based column (UTF-16 code units) of the first match on the line. For a regex on a line so
   * long that finding the first match would be costly, the start of the line's last match.
   */
  column: number
  /** The whole matching line, without its line break. */
  text: string
  before?: string[]
  after?: string[]
}

export interface GrepResult {
  matches: GrepMatch[]
  /** True when `maxMatches`, the deadline or the signal cut the search short. */
  truncated: boolean
  filesSearched: number
}

/**
 * Limits on one scope. Exceeding one fails the write with EQUOTA and writes nothing. History (what
 * each write replaced, kept so it can be diffed and undone) is counted as the store's
 * `history.usage()` counts it; `gc()` frees it. See docs/history.md, "Retention and quota".
 */
export interface VfsQuota {
  /** Bytes of files. */
  maxBytes?: number
  maxFiles?: number
  /** Bytes of history: a write that replaces or deletes content past it fails. */
  maxHistoryBytes?: number
  /** Bytes of files and history together (what the hosts charge an owner); a delete always passes. */
  maxStoredBytes?: number
}

/** Bytes and files a scope holds now, pending writes included. */
export interface VfsUsage {
  /** Bytes of files. */
  bytes: number
  files: number
  /** Bytes of history (before-images and change rows; 0 for a store that keeps none). Absent from views that cannot tell. */
  historyBytes?: number
}

/**
 * Something that happened to a workspace; see {@link Vfs.onChange}. A `commit` is one of this
 * instance's commits: `paths` every path it wrote (or checked), `changes` what it did to each path
 * it wrote, with who did it (the {@link FileChange}s history records). `external` and `refreshed`
 * say another writer committed and what this instance loaded; their paths are not known here
 * (read `history({ after })` for them).
 */
export type VfsChange =
  | { type: 'commit'; version: number; paths: string[]; changes: FileChange[] }
  | { type: 'external'; version: number }
  | { type: 'refreshed'; version: number }

/**
 * A persistent workspace. Reads are served from memory; every write's promise settles once the
 * write is durable in the store. Paths are POSIX; relative ones resolve against `/`.
 */
export interface Vfs {
  readonly namespace: string
  readonly scope: string
  readFile(path: string): Promise<Uint8Array>
  readFile(path: string, encoding: 'utf8' | 'utf-8'): Promise<string>
  writeFile(path: string, data: FileData, options?: WriteOptions): Promise<void>
  appendFile(path: string, data: FileData): Promise<void>
  deleteFile(path: string): Promise<void>
  mkdir(path: string): Promise<void>
  rmdir(path: string, options?: RmdirOptions): Promise<void>
  readdir(path: string, options?: ReaddirOptions): Promise<string[]>
  stat(path: string): Promise<VfsStat>
  exists(path: string): Promise<boolean>
  /** Moves a file or a whole directory, atomically. Missing parents of `to` are created. */
  rename(from: string, to: string): Promise<void>
  /** Copies a file or a whole directory. A directory target must not exist yet. */
  copy(from: string, to: string): Promise<void>
  /**
   * Absolute paths matching a glob pattern (`**`, `*`, `?`, `{a,b}`, `[ab]`, `[!ab]`), sorted.
   * Matching is linear in the path's length whatever the pattern. With a deadline or signal it
   * returns what it found so far; use {@link walk} to learn whether it stopped early.
   */
  glob(pattern: string, options?: GlobOptions): Promise<string[]>
  /**
   * Entries matching a glob pattern, with their type and size, stopping at `limit`, the deadline or
   * the signal: how to list or search a tree that may be huge. `/dir/**` lists `/dir` and everything below.
   */
  walk(pattern: string, options?: WalkOptions): Promise<WalkResult>
  /** Searches file contents: literal text, or an RE2 regular expression (see {@link GrepOptions}). */
  grep(pattern: string, options?: GrepOptions): Promise<GrepResult>
  /** Resolves once every write issued before it is durable; rejects if one of them failed. */
  flush(): Promise<void>
  /** Loads what other writers committed to this scope; pending local writes stay on top. */
  refresh(): Promise<void>
  /** Waits for pending writes, then releases the workspace; later calls fail with ECLOSED. */
  close(): Promise<void>
  /** Bytes and files in the scope. */
  usage(): VfsUsage
  /** Subscribes to commits and external changes. Returns an unsubscribe function. */
  onChange(listener: (change: VfsChange) => void): () => void
}

export interface OpenVfsOptions {
  store: VfsStore
  /** Groups scopes, e.g. an app or a tenant. */
  namespace: string
  /** One workspace, e.g. a session id. */
  scope: string
  quota?: VfsQuota
  /**
   * When the store can tell (IndexedDB across tabs), load other writers' commits as they happen.
   * Default true.
   */
  autoRefresh?: boolean
}
