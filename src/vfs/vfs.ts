import { concatBytes, toBytes } from './bytes.js'
import { VfsError } from '../contract/errors.js'
import { grepTree, walkEntries } from './search.js'
import { loadRegexEngine } from './regex-engine.js'
import { CommitQueue, type Dependencies } from './commit-queue.js'
import { checkTransfer, dedupeLast, movedNode, transferDependencies } from './transfer.js'
import { mimeTypeOf } from './mime.js'
import { readTextNow, type ReadsTextNow } from './read-now.js'
import { normalizePath, parentOf } from '../contract/paths.js'
import type { ScopeSnapshot, VfsStore } from '../contract/store.js'
import { dirNode, nodeText, Tree, type Node } from './tree.js'
import { fileChanges } from './file-change.js'
import { HistoryMeter } from './history-meter.js'
import { checkQuota, checkVersion, missingParents, parentRead } from './write-checks.js'
// prettier-ignore
import type {
  FileData, GlobOptions, GrepOptions, GrepResult, ReaddirOptions, RmdirOptions, Vfs, VfsChange,
  VfsQuota, VfsStat, VfsUsage, WalkOptions, WalkResult, WriteOptions,
} from './types.js'

/** The workspace over one store scope. Create it with `openVfs()`. */
export class StoreVfs implements Vfs, ReadsTextNow {
  private tree = new Tree()
  private readonly commits: CommitQueue
  private readonly listeners = new Set<(change: VfsChange) => void>()
  private durableVersion = 0
  /** The actor tag (JSON) of the write being issued right now: withActor sets it around a synchronous call (actor.ts). */
  writingAs: string | undefined
  private closed = false
  private unwatch: (() => void) | undefined
  private hydrated = false
  /** Versions this instance committed (the most recent ones): their notices are not news. */
  private readonly ownVersions = new Set<number>()
  private backgroundRefresh: Promise<void> | undefined
  private refreshAgain = false
  /** For each refresh() in progress: paths this instance committed while the snapshot loaded, and their version. */
  private readonly loading = new Set<Map<string, number>>()
  /** History's bytes, for `usage()` and the history quotas. */
  protected readonly historyMeter: HistoryMeter

  constructor(
    private readonly store: VfsStore,
    readonly namespace: string,
    readonly scope: string,
    private readonly quota: VfsQuota = {},
  ) {
    this.historyMeter = new HistoryMeter(store, namespace, scope)
    this.commits = new CommitQueue(
      () => this.tree,
      store,
      namespace,
      scope,
      (version, paths, record) => {
        for (const seen of this.loading) for (const p of paths) seen.set(p, version)
        this.durableVersion = Math.max(this.durableVersion, version)
        this.ownVersions.add(version)
        this.historyMeter.recorded(record)
        if (this.ownVersions.size > 256) this.ownVersions.delete(this.ownVersions.values().next().value!)
        // The notice's changes are built only for someone listening (most workspaces have no listener).
        if (this.listeners.size > 0) this.emit({ type: 'commit', version, paths, changes: fileChanges(record, version) })
      },
      estimate => this.historyMeter.release(estimate),
    )
  }

  /** The latest version this instance knows to be durable (its last commit or load). */
  get version(): number {
    return this.durableVersion
  }

  /** Loads the scope from the store. Called once by openVfs(). */
  async hydrate(autoRefresh: boolean): Promise<void> {
    // Subscribe before loading, so a commit that lands while the snapshot loads is not missed.
    let heardDuringLoad = false
    if (autoRefresh && this.store.watch) {
      this.unwatch = this.store.watch(this.namespace, this.scope, version => {
        // Versions are not compared with ours: another tab's notice can arrive after our own
        // later commit. Only our own commits are skipped.
        if (this.closed || this.ownVersions.has(version)) return
        if (!this.hydrated) return void (heardDuringLoad = true)
        this.emit({ type: 'external', version })
        this.refreshInBackground()
      })
    }
    this.replaceTree(await this.store.load(this.namespace, this.scope))
    await this.historyMeter.recount()
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
    if (encoding !== 'utf8' && encoding !== 'utf-8')
      throw new VfsError('EINVAL', path, `unknown encoding ${JSON.stringify(encoding)}; use 'utf8' or none for bytes`)
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
    return this.tree
      .descendants(dir)
      .map(p => p.slice(prefix))
      .sort()
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
    return (await this.walk(pattern, { includeDirs, deadline, signal })).entries.map(e => e.path)
  }

  async walk(pattern: string, options: WalkOptions = {}): Promise<WalkResult> {
    this.check('/')
    await loadRegexEngine()
    return walkEntries(this.tree, pattern, options)
  }

  async grep(pattern: string, options: GrepOptions = {}): Promise<GrepResult> {
    this.check('/')
    await loadRegexEngine()
    return grepTree(this.tree, pattern, options)
  }

  usage(): VfsUsage {
    return { bytes: this.tree.bytes, files: this.tree.files, historyBytes: this.historyMeter.bytes }
  }

  // ---- writes --------------------------------------------------------------------------------

  // Not `async`: an async wrapper adds a promise and two microtask hops to every write. A refused write still rejects.
  writeFile(path: string, data: FileData, options: WriteOptions = {}): Promise<void> {
    try {
      const p = this.check(path)
      const bytes = toBytes(data, path)
      const existing = this.tree.get(p)
      if (p === '/' || existing?.kind === 'dir') throw new VfsError('EISDIR', path, 'cannot write file content to a directory')
      if (options.expectedVersion !== undefined) checkVersion(path, existing, options.expectedVersion)
      return this.putFile(p, path, bytes, existing)
    } catch (error) {
      return Promise.reject(error)
    }
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
    const changes = missingParents(this.tree, p, path)
    if (!existing) changes.push([p, dirNode(Date.now(), 0, true)])
    // Already there in this instance's view: the store must still have it (another writer may have
    // removed it), so the promise settles once a batch has checked that it is a directory.
    if (changes.length === 0) return this.commit([], { reads: [[p, existing!]] })
    return this.commit(changes, { reads: parentRead(this.tree, p) })
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
    const changes: Array<[string, Node | null]> = missingParents(this.tree, target, to)
    const now = Date.now()
    for (const [oldPath, node] of entries) {
      changes.push([oldPath, null])
      const newPath = target + oldPath.slice(source.length)
      changes.push([newPath, movedNode(this.tree, node, newPath, now)])
    }
    // Deletions of old paths come first in `changes`; a moved entry reusing a path wins.
    return this.commit(dedupeLast(changes), transferDependencies(this.tree, source, target, entries, 'move'))
  }

  async copy(from: string, to: string): Promise<void> {
    const { source, target, entries } = this.planTransfer(from, to, 'copy')
    const changes: Array<[string, Node | null]> = missingParents(this.tree, target, to)
    const now = Date.now()
    for (const [oldPath, node] of entries) {
      const newPath = target + oldPath.slice(source.length)
      changes.push([newPath, { ...movedNode(this.tree, node, newPath, now), ctime: now }])
    }
    return this.commit(changes, transferDependencies(this.tree, source, target, entries, 'copy'))
  }

  // ---- lifecycle -----------------------------------------------------------------------------

  flush(): Promise<void> {
    return this.commits.flush()
  }

  async refresh(): Promise<void> {
    this.check('/')
    await this.commits.idle()
    const committedMeanwhile = new Map<string, number>()
    this.loading.add(committedMeanwhile)
    let snapshot: ScopeSnapshot
    try {
      snapshot = await this.store.load(this.namespace, this.scope)
      await this.historyMeter.recount()
    } finally {
      this.loading.delete(committedMeanwhile)
    }
    const old = this.tree
    this.replaceTree(snapshot)
    // Our writes that the snapshot may predate stay on top of it: those still pending, and those
    // that became durable while it loaded (their version is newer than the snapshot's).
    const keep = new Set(this.commits.pendingPaths())
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
    await this.commits.idle()
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

  private putFile(p: string, path: string, bytes: Uint8Array, existing: Node | undefined): Promise<void> {
    // The common case first: the parent is a directory this instance holds, so every ancestor is.
    const parent = existing ? undefined : parentOf(p)
    const parentNode = parent === undefined ? undefined : this.tree.get(parent)
    const changes: Array<[string, Node | null]> = existing || parentNode?.kind === 'dir' ? [] : missingParents(this.tree, p, path)
    checkQuota(this.tree, this.quota, path, bytes.length - (existing?.data.length ?? 0), existing ? 0 : 1)
    const now = Date.now()
    changes.push([
      p,
      { kind: 'file', data: bytes, version: existing?.version ?? 0, pending: true, mtime: now, ctime: existing?.ctime ?? now },
    ])
    if (existing) return this.commit(changes)
    return this.commit(changes, { reads: parentNode && parent !== '/' ? [[parent!, parentNode]] : parentRead(this.tree, p) })
  }

  private planTransfer(from: string, to: string, verb: 'move' | 'copy') {
    const source = this.check(from)
    const target = this.check(to)
    const { entries, existing } = checkTransfer(this.tree, { source, target, from, to, verb })
    if (verb === 'copy') {
      const copied = entries.flatMap(([, n]) => (n.kind === 'file' ? [n.data.length] : []))
      const [bytes, files] = [copied.reduce((sum, n) => sum + n, 0), copied.length]
      const replaced = existing?.kind === 'file' ? existing.data.length : 0
      checkQuota(this.tree, this.quota, to, bytes - replaced, files - (existing?.kind === 'file' ? 1 : 0))
    }
    return { source, target, entries }
  }

  /**
   * Applies changes to the tree and queues them; the promise settles, with the commit's version,
   * when they are durable. Internal to src/vfs (land.ts lands reverts and branches through it).
   */
  enqueueChanges(changes: Array<[string, Node | null]>, deps: Dependencies = {}): Promise<number> {
    const history = this.historyMeter.admit(this.tree, this.quota, changes)
    for (const [p] of changes) this.commits.touch(p)
    for (const [p, node] of changes) this.tree.set(p, node)
    const paths = changes.map(([p]) => p)
    this.historyMeter.hold(history)
    return this.commits.enqueue(paths, deps, this.writingAs, history)
  }

  /** A write's promise: it settles when durable (its value, the version, is not part of the API). */
  private commit(changes: Array<[string, Node | null]>, deps?: Dependencies): Promise<void> {
    return this.enqueueChanges(changes, deps) as Promise<unknown> as Promise<void>
  }

  /** Internal to src/vfs: what `path` durably holds as far as this instance knows (pending writes left out). */
  durableNode = (path: string): Node | undefined => this.commits.durableNode(path)

  /** Internal to src/vfs: the tree as this instance sees it (pending writes included) and the commit queue's idle wait. */
  treeNow = (): Tree => this.tree
  idle = (): Promise<void> => this.commits.idle()

  /** The store this workspace commits to; internal to src/vfs. */
  get storeBelow(): VfsStore {
    return this.store
  }

  /** For a write that changed nothing: settles once the paths it relies on are durable. */
  private settled(paths: string[]): Promise<void> {
    return this.commits.whenDurable(paths)
  }

  private replaceTree(snapshot: ScopeSnapshot): void {
    this.tree = Tree.fromSnapshot(snapshot)
    this.durableVersion = snapshot.version
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
