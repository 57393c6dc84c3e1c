import { concatBytes, toBytes } from './bytes.js'
import { VfsError } from '../contract/errors.js'
import { compileGlob, type CompiledGlob } from './glob.js'
import { compileGrep } from './grep.js'
import { checkPattern, deadlineOption, integerOption, MAX_GREP_CONTEXT, MAX_GREP_MATCHES, MAX_GREP_PATHS, stopWhen, WALK_CHECK_EVERY } from './limits.js'
import { walkTree } from './walk.js'
import { Journal, type Dependencies } from './journal.js'
import { mimeTypeOf } from './mime.js'
import { readTextNow, type ReadsTextNow } from './read-now.js'
import { ancestorsOf, isWithin, MAX_PATH_LENGTH, normalizePath, parentOf } from '../contract/paths.js'
import type { ScopeSnapshot, VfsStore } from '../contract/store.js'
import { dirNode, nodeText, Tree, type Node } from './tree.js'
import type {
  FileData, GlobOptions, GrepMatch, GrepOptions, GrepResult, ReaddirOptions, RmdirOptions, Vfs, VfsChange,
  VfsQuota, VfsStat, VfsUsage, WalkEntry, WalkOptions, WalkResult, WriteOptions,
} from './types.js'

/** The workspace over one store scope. Create it with `openVfs()`. */
export class StoreVfs implements Vfs, ReadsTextNow {
  private tree = new Tree()
  private readonly journal: Journal
  private readonly listeners = new Set<(change: VfsChange) => void>()
  private version = 0
  private closed = false
  private unwatch: (() => void) | undefined
  private hydrated = false
  /** Versions this instance committed (the most recent ones): their notices are not news. */
  private readonly ownVersions = new Set<number>()
  private backgroundRefresh: Promise<void> | undefined
  private refreshAgain = false
  /** For each refresh() in progress: paths this instance committed while the snapshot loaded, and their version. */
  private readonly loading = new Set<Map<string, number>>()

  constructor(
    private readonly store: VfsStore,
    readonly namespace: string,
    readonly scope: string,
    private readonly quota: VfsQuota = {},
  ) {
    this.journal = new Journal(() => this.tree, store, namespace, scope, (version, paths) => {
      for (const seen of this.loading) for (const p of paths) seen.set(p, version)
      this.version = Math.max(this.version, version)
      this.ownVersions.add(version)
      if (this.ownVersions.size > 256) this.ownVersions.delete(this.ownVersions.values().next().value!)
      this.emit({ type: 'commit', version, paths })
    })
  }

  /** Loads the scope from the store. Called once by openVfs(). */
  async hydrate(autoRefresh: boolean): Promise<void> {
    // Subscribe before loading, so a commit that lands while the snapshot loads is not missed.
    let heardDuringLoad = false
    if (autoRefresh && this.store.watch) {
      this.unwatch = this.store.watch(this.namespace, this.scope, (version) => {
        // Versions are not compared with ours: another tab's notice can arrive after our own
        // later commit. Only our own commits are skipped.
        if (this.closed || this.ownVersions.has(version)) return
        if (!this.hydrated) return void (heardDuringLoad = true)
        this.emit({ type: 'external', version })
        this.refreshInBackground()
      })
    }
    this.replaceTree(await this.store.load(this.namespace, this.scope))
    this.hydrated = true
    if (heardDuringLoad) this.refreshInBackground()
  }

  /** Coalesces notices: at most one refresh runs, and one more follows if notices came meanwhile. */
  private refreshInBackground(): void {
    if (this.backgroundRefresh) return void (this.refreshAgain = true)
    this.backgroundRefresh = this.refresh()
      .catch(() => {
        // A failed background refresh leaves the old state; the next explicit refresh() reports it.
      })
      .finally(() => {
        this.backgroundRefresh = undefined
        if (this.refreshAgain && !this.closed) {
          this.refreshAgain = false
          this.refreshInBackground()
        }
      })
  }

  // ---- reads ---------------------------------------------------------------------------------

  readFile(path: string): Promise<Uint8Array>
  readFile(path: string, encoding: 'utf8' | 'utf-8'): Promise<string>
  async readFile(path: string, encoding?: 'utf8' | 'utf-8'): Promise<Uint8Array | string> {
    const node = this.fileAt(path)
    if (encoding === undefined) return node.data.slice()
    if (encoding !== 'utf8' && encoding !== 'utf-8') throw new VfsError('EINVAL', path, `unknown encoding ${JSON.stringify(encoding)}; use 'utf8' or none for bytes`)
    return nodeText(node)
  }

  /** readFile(path, 'utf8') without the promise; see read-now.ts. */
  [readTextNow](path: string): string {
    return nodeText(this.fileAt(path))
  }

  async readdir(path: string, options: ReaddirOptions = {}): Promise<string[]> {
    const dir = this.dirAt(path)
    if (!options.recursive) return [...this.tree.childNames(dir)].sort()
    const prefix = dir === '/' ? 1 : dir.length + 1
    return this.tree.descendants(dir).map((p) => p.slice(prefix)).sort()
  }

  async stat(path: string): Promise<VfsStat> {
    const p = this.check(path)
    const node = this.tree.get(p)
    if (!node) throw new VfsError('ENOENT', path, 'no such file or directory')
    return {
      type: node.kind === 'dir' ? 'directory' : 'file',
      size: node.data.length,
      mtime: node.mtime,
      ctime: node.ctime,
      version: node.version,
      mimeType: node.kind === 'dir' ? 'inode/directory' : mimeTypeOf(p),
    }
  }

  async exists(path: string): Promise<boolean> {
    return this.tree.get(this.check(path)) !== undefined
  }

  async glob(pattern: string, options: GlobOptions = {}): Promise<string[]> {
    const { includeDirs, deadline, signal } = options
    return (await this.walk(pattern, { includeDirs, deadline, signal })).entries.map((e) => e.path)
  }

  async walk(pattern: string, options: WalkOptions = {}): Promise<WalkResult> {
    this.check('/')
    const glob = compileGlob(pattern)
    const limit = integerOption('limit', options.limit, Number.MAX_SAFE_INTEGER, 0, Number.MAX_SAFE_INTEGER)
    const stop = stopWhen(deadlineOption(options.deadline), options.signal)
    const filter = options.filter
    if (filter !== undefined && typeof filter !== 'function') throw new VfsError('EINVAL', undefined, 'filter must be a function')
    const entries: WalkEntry[] = []
    let truncated = false
    let seen = 0
    for (const path of this.candidates(glob)) {
      if (++seen % WALK_CHECK_EVERY === 0 && stop()) {
        truncated = true
        break
      }
      const node = this.tree.get(path)!
      if (!glob.test(path) || (node.kind === 'dir' && !options.includeDirs) || (filter && !filter(path))) continue
      if (entries.length >= limit) {
        truncated = true
        break
      }
      entries.push({ path, type: node.kind === 'dir' ? 'directory' : 'file', size: node.data.length })
    }
    return { entries: entries.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0)), truncated }
  }

  /** Paths a glob could match: its base and, to the glob's depth, everything below it; lazily. */
  private *candidates(glob: CompiledGlob): Generator<string> {
    const base = this.tree.get(glob.base)
    if (!base) return
    yield glob.base
    if (base.kind === 'dir') yield* walkTree(this.tree, glob.base, glob.depth)
  }

  async grep(pattern: string, options: GrepOptions = {}): Promise<GrepResult> {
    this.check('/')
    checkPattern('grep', pattern)
    const maxMatches = integerOption('maxMatches', options.maxMatches, 1000, 1, MAX_GREP_MATCHES)
    const context = integerOption('context', options.context, 0, 0, MAX_GREP_CONTEXT)
    const deadline = deadlineOption(options.deadline)
    const match = compileGrep(pattern, options.regex === true, options.ignoreCase === true)
    let stopped = false
    const due = stopWhen(deadline, options.signal)
    const stop = () => (stopped ||= due())
    const matches: GrepMatch[] = []
    let filesSearched = 0
    let seen = 0
    let truncated = false
    for (const path of this.grepFiles(options.paths)) {
      if (++seen % WALK_CHECK_EVERY === 0 && stop()) break
      const node = this.tree.get(path)!
      if (node.kind !== 'file' || looksBinary(node.data)) continue
      filesSearched++
      const room = maxMatches - matches.length
      // Ask for one more than fits, to know whether the cap cut anything off.
      const added = match(nodeText(node), path, matches, room + 1, context, stop)
      if (added > room) {
        matches.pop()
        truncated = true
        break
      }
      if (stopped) break
    }
    return { matches, truncated: truncated || stopped, filesSearched }
  }

  /**
   * The files a grep searches, lazily, each once, in walk order, among the directories it walks
   * through (yielded too, so that the caller's deadline checks count them).
   */
  private *grepFiles(scopes: unknown): Generator<string> {
    if (scopes === undefined || (Array.isArray(scopes) && scopes.length === 0)) {
      yield* walkTree(this.tree, '/')
      return
    }
    if (!Array.isArray(scopes) || scopes.some((s) => typeof s !== 'string')) throw new VfsError('EINVAL', undefined, 'paths must be an array of strings')
    if (scopes.length > MAX_GREP_PATHS) throw new VfsError('EINVAL', undefined, `paths holds ${scopes.length} entries; at most ${MAX_GREP_PATHS} are allowed: pass a directory or a glob instead`)
    // Check every scope before searching, so a typo fails at once instead of after a long search.
    const sources: Array<Iterable<string>> = []
    for (const s of scopes as string[]) {
      if (/[*?[\]{}]/.test(s)) {
        sources.push(this.globFiles(compileGlob(s)))
        continue
      }
      const p = normalizePath(s)
      const node = this.tree.get(p)
      if (!node) throw new VfsError('ENOENT', s, 'grep path does not exist')
      sources.push(node.kind === 'file' ? [p] : walkTree(this.tree, p))
    }
    const seen = sources.length > 1 ? new Set<string>() : undefined
    for (const source of sources) {
      for (const p of source) {
        if (seen?.has(p)) continue
        seen?.add(p)
        yield p
      }
    }
  }

  /** Files a glob matches, and every directory walked to find them. */
  private *globFiles(glob: CompiledGlob): Generator<string> {
    for (const p of this.candidates(glob)) if (this.tree.get(p)!.kind === 'dir' || glob.test(p)) yield p
  }

  usage(): VfsUsage {
    return { bytes: this.tree.bytes, files: this.tree.files }
  }

  // ---- writes --------------------------------------------------------------------------------

  async writeFile(path: string, data: FileData, options: WriteOptions = {}): Promise<void> {
    const p = this.check(path)
    const bytes = toBytes(data, path)
    const existing = this.tree.get(p)
    if (p === '/' || existing?.kind === 'dir') throw new VfsError('EISDIR', path, 'cannot write file content to a directory')
    if (options.expectedVersion !== undefined) this.checkVersion(path, existing, options.expectedVersion)
    return this.putFile(p, path, bytes, existing)
  }

  async appendFile(path: string, data: FileData): Promise<void> {
    const p = this.check(path)
    const bytes = toBytes(data, path)
    const existing = this.tree.get(p)
    if (p === '/' || existing?.kind === 'dir') throw new VfsError('EISDIR', path, 'cannot append to a directory')
    return this.putFile(p, path, existing ? concatBytes(existing.data, bytes) : bytes, existing)
  }

  async deleteFile(path: string): Promise<void> {
    const p = this.check(path)
    this.fileAt(path)
    return this.commit([[p, null]])
  }

  async mkdir(path: string): Promise<void> {
    const p = this.check(path)
    const existing = this.tree.get(p)
    if (existing?.kind === 'file') throw new VfsError('EEXIST', path, 'a file with this name exists')
    const changes = this.missingParents(p, path)
    if (!existing) changes.push([p, dirNode(Date.now(), 0, true)])
    // Already there in this instance's view: the store must still have it (another writer may have
    // removed it), so the promise settles once a batch has checked that it is a directory.
    if (changes.length === 0) return this.commit([], { reads: [[p, existing!]] })
    return this.commit(changes, { reads: this.parentRead(p) })
  }

  async rmdir(path: string, options: RmdirOptions = {}): Promise<void> {
    const p = this.dirAt(path)
    if (p === '/') throw new VfsError('EINVAL', path, 'the root directory cannot be removed')
    if (this.tree.hasChildren(p) && !options.recursive) throw new VfsError('ENOTEMPTY', path, 'the directory is not empty')
    const victims = this.tree.descendants(p).reverse()
    return this.commit([...victims.map((v): [string, null] => [v, null]), [p, null]], { subtrees: [p] })
  }

  async rename(from: string, to: string): Promise<void> {
    const { source, target, entries } = this.planTransfer(from, to, 'move')
    if (source === target) return this.settled([source])
    const changes: Array<[string, Node | null]> = this.missingParents(target, to)
    const now = Date.now()
    for (const [oldPath, node] of entries) {
      changes.push([oldPath, null])
      const newPath = target + oldPath.slice(source.length)
      changes.push([newPath, this.moved(node, newPath, now)])
    }
    // Deletions of old paths come first in `changes`; a moved entry reusing a path wins.
    return this.commit(dedupeLast(changes), this.transferDependencies(source, target, entries, 'move'))
  }

  async copy(from: string, to: string): Promise<void> {
    const { source, target, entries } = this.planTransfer(from, to, 'copy')
    const changes: Array<[string, Node | null]> = this.missingParents(target, to)
    const now = Date.now()
    for (const [oldPath, node] of entries) {
      const newPath = target + oldPath.slice(source.length)
      changes.push([newPath, { ...this.moved(node, newPath, now), ctime: now }])
    }
    return this.commit(changes, this.transferDependencies(source, target, entries, 'copy'))
  }

  // ---- lifecycle -----------------------------------------------------------------------------

  flush(): Promise<void> {
    return this.journal.flush()
  }

  async refresh(): Promise<void> {
    this.check('/')
    await this.journal.idle()
    const committedMeanwhile = new Map<string, number>()
    this.loading.add(committedMeanwhile)
    let snapshot: ScopeSnapshot
    try {
      snapshot = await this.store.load(this.namespace, this.scope)
    } finally {
      this.loading.delete(committedMeanwhile)
    }
    const old = this.tree
    this.replaceTree(snapshot)
    // Our writes that the snapshot may predate stay on top of it: those still pending, and those
    // that became durable while it loaded (their version is newer than the snapshot's).
    const keep = new Set(this.journal.pendingPaths())
    for (const [p, version] of committedMeanwhile) if (version > snapshot.version) keep.add(p)
    for (const p of [...keep].sort()) {
      const node = old.get(p) ?? null
      if (node) this.tree.addMissingAncestors(p)
      this.tree.set(p, node)
    }
    this.emit({ type: 'refreshed', version: snapshot.version })
  }

  async close(): Promise<void> {
    if (this.closed) return
    // Failed batches were already reported to their writers; closing only waits for the rest.
    await this.journal.idle()
    this.closed = true
    this.unwatch?.()
    this.listeners.clear()
  }

  onChange(listener: (change: VfsChange) => void): () => void {
    this.listeners.add(listener)
    return () => this.listeners.delete(listener)
  }

  // ---- internals -----------------------------------------------------------------------------

  private check(path: string): string {
    if (this.closed) throw new VfsError('ECLOSED', path, 'the workspace is closed')
    return normalizePath(path)
  }

  private fileAt(path: string): Node {
    const node = this.tree.get(this.check(path))
    if (!node) throw new VfsError('ENOENT', path, 'no such file')
    if (node.kind === 'dir') throw new VfsError('EISDIR', path, 'this is a directory, not a file')
    return node
  }

  private dirAt(path: string): string {
    const p = this.check(path)
    const node = this.tree.get(p)
    if (!node) throw new VfsError('ENOENT', path, 'no such directory')
    if (node.kind !== 'dir') throw new VfsError('ENOTDIR', path, 'this is a file, not a directory')
    return p
  }

  private checkVersion(path: string, node: Node | undefined, expected: number): void {
    if (!Number.isInteger(expected) || expected < 0) throw new VfsError('EINVAL', path, 'expectedVersion must be a non-negative integer')
    const current = node?.kind === 'file' ? node.version : 0
    if (node?.pending) throw new VfsError('ECONFLICT', path, 'another write to this file is still in flight; await it, then stat() and retry')
    if (current !== expected) throw new VfsError('ECONFLICT', path, `expected version ${expected}, the file is at version ${current}`)
  }

  private putFile(p: string, path: string, bytes: Uint8Array, existing: Node | undefined): Promise<void> {
    const changes = this.missingParents(p, path)
    this.checkQuota(path, bytes.length - (existing?.data.length ?? 0), existing ? 0 : 1)
    const now = Date.now()
    changes.push([p, { kind: 'file', data: bytes, version: existing?.version ?? 0, pending: true, mtime: now, ctime: existing?.ctime ?? now }])
    return this.commit(changes, existing ? {} : { reads: this.parentRead(p) })
  }

  /**
   * The nearest existing ancestor of `p` below the root, with its node: a new entry relies on it
   * still being the directory this instance saw (the store keeps every entry's parent, so that
   * one check covers all ancestors).
   */
  private parentRead(p: string): Array<[string, Node | null]> {
    for (let a = parentOf(p); a !== '/'; a = parentOf(a)) {
      const node = this.tree.get(a)
      if (node) return [[a, node]]
    }
    return []
  }

  /**
   * A move relies on the whole source subtree (every entry of it moves) and on the target's
   * subtree when it replaces an empty directory; a copy relies on every entry it reads. Both rely
   * on the target's parent.
   */
  private transferDependencies(source: string, target: string, entries: Array<[string, Node]>, verb: 'move' | 'copy'): Dependencies {
    const subtrees: string[] = []
    if (entries[0][1].kind === 'dir') subtrees.push(source)
    if (this.tree.get(target)?.kind === 'dir' && verb === 'move') subtrees.push(target)
    const reads = this.parentRead(target)
    if (verb === 'copy') for (const [p, node] of entries) reads.push([p, node])
    return { reads, subtrees }
  }

  /** Directory nodes to create for the missing ancestors of `p`; ENOTDIR if one is a file. */
  private missingParents(p: string, path: string): Array<[string, Node]> {
    const out: Array<[string, Node]> = []
    const now = Date.now()
    for (const a of ancestorsOf(p)) {
      const node = this.tree.get(a)
      if (node?.kind === 'file') throw new VfsError('ENOTDIR', path, `${a} is a file, not a directory`)
      if (!node) out.push([a, dirNode(now, 0, true)])
    }
    return out
  }

  private checkQuota(path: string, addBytes: number, addFiles: number): void {
    const { maxBytes, maxFiles } = this.quota
    if (maxBytes !== undefined && addBytes > 0 && this.tree.bytes + addBytes > maxBytes) {
      throw new VfsError('EQUOTA', path, `the write needs ${this.tree.bytes + addBytes} bytes, the scope allows ${maxBytes}`)
    }
    if (maxFiles !== undefined && addFiles > 0 && this.tree.files + addFiles > maxFiles) {
      throw new VfsError('EQUOTA', path, `the write needs ${this.tree.files + addFiles} files, the scope allows ${maxFiles}`)
    }
  }

  private planTransfer(from: string, to: string, verb: 'move' | 'copy') {
    const source = this.check(from)
    const target = this.check(to)
    const node = this.tree.get(source)
    if (!node) throw new VfsError('ENOENT', from, `nothing to ${verb}`)
    if (source === '/') throw new VfsError('EINVAL', from, `the root directory cannot be the source of a ${verb}`)
    if (isWithin(target, source) && target !== source) throw new VfsError('EINVAL', to, `cannot ${verb} a directory into itself`)
    const existing = this.tree.get(target)
    if (existing) {
      if (node.kind === 'file' && existing.kind === 'dir') throw new VfsError('EISDIR', to, 'the target is a directory')
      if (node.kind === 'dir' && existing.kind === 'file') throw new VfsError('ENOTDIR', to, 'the target is a file')
      if (node.kind === 'dir' && (verb === 'copy' || this.tree.hasChildren(target))) {
        throw new VfsError(verb === 'copy' ? 'EEXIST' : 'ENOTEMPTY', to, 'the target directory already exists')
      }
    }
    const entries: Array<[string, Node]> = [[source, node]]
    if (node.kind === 'dir') for (const d of this.tree.descendants(source)) entries.push([d, this.tree.get(d)!])
    // Names do not change, only the prefix: the longest path created is the longest source path, moved.
    let longest = 0
    for (const [p] of entries) longest = Math.max(longest, p.length)
    if (longest - source.length + target.length > MAX_PATH_LENGTH) {
      throw new VfsError('EINVAL', to, `the ${verb} would create a path of ${longest - source.length + target.length} characters; paths are limited to ${MAX_PATH_LENGTH}`)
    }
    if (verb === 'copy') {
      let bytes = 0
      let files = 0
      for (const [, n] of entries) if (n.kind === 'file') (bytes += n.data.length), files++
      const replaced = existing?.kind === 'file' ? existing.data.length : 0
      this.checkQuota(to, bytes - replaced, files - (existing?.kind === 'file' ? 1 : 0))
    }
    return { source, target, entries }
  }

  private moved(node: Node, newPath: string, now: number): Node {
    const existing = this.tree.get(newPath)
    return { kind: node.kind, data: node.data, version: existing?.version ?? 0, pending: true, mtime: node.kind === 'dir' ? now : node.mtime, ctime: node.ctime, text: node.text }
  }

  /** Applies changes to the tree and queues them; the promise settles when they are durable. */
  private commit(changes: Array<[string, Node | null]>, deps: Dependencies = {}): Promise<void> {
    for (const [p] of changes) this.journal.touch(p)
    for (const [p, node] of changes) this.tree.set(p, node)
    return this.journal.enqueue(changes.map(([p]) => p), deps)
  }

  /** For a write that changed nothing: settles once the paths it relies on are durable. */
  private settled(paths: string[]): Promise<void> {
    return this.journal.whenDurable(paths)
  }

  private replaceTree(snapshot: ScopeSnapshot): void {
    const tree = new Tree()
    for (const e of snapshot.entries) {
      tree.set(e.path, { kind: e.kind, data: e.data, version: e.version, pending: false, mtime: e.mtime, ctime: e.ctime })
    }
    for (const e of snapshot.entries) tree.addMissingAncestors(e.path)
    this.tree = tree
    this.version = snapshot.version
  }

  private emit(change: VfsChange): void {
    for (const listener of this.listeners) {
      try {
        listener(change)
      } catch {
        // A listener's failure must not break the write path.
      }
    }
  }
}

function looksBinary(data: Uint8Array): boolean {
  const n = Math.min(data.length, 1024)
  for (let i = 0; i < n; i++) if (data[i] === 0) return true
  return false
}

function dedupeLast(changes: Array<[string, Node | null]>): Array<[string, Node | null]> {
  const last = new Map<string, Node | null>()
  for (const [p, n] of changes) last.set(p, n)
  return [...last]
}
