import { VfsError } from '../contract/errors.js'
import { isWithin } from '../contract/paths.js'
import type { Expectation, StoreOp, VfsStore } from '../contract/store.js'
import type { Node, Tree } from './tree.js'
import type { CommitRecord } from '../contract/history.js'
import { buildCommitRecord } from './change-record.js'

/**
 * What a write relied on besides the paths it changed: entries it read (the directory a file is
 * created in, the files a copy reads), with the node it saw, and directories whose whole subtree it
 * relied on (one it removes, moves, replaces or copies). The batch carries them to the store as
 * checks, so a batch built on a stale view fails with ECONFLICT instead of losing another write.
 */
export interface Dependencies {
  reads?: Array<[string, Node | null]>
  subtrees?: string[]
}

/** One caller's write: the paths it changed, what it relied on, and its promise to settle. */
interface Intent {
  paths: string[]
  deps: Dependencies
  /** The writer's actor tag as JSON (see withActor), recorded with the paths it changed. */
  actor: string | undefined
  /** What the owner counts for the write until it settles (see onSettled). */
  weight: number
  done: Promise<number>
  resolve: (version: number) => void
  reject: (error: unknown) => void
}

const ignore = () => undefined

/**
 * The commit queue: write-through with group commit. A write changes the tree first, then joins the
 * queue; one commit runs at a time and takes everything queued, as one atomic store batch. While
 * it runs, new writes queue for the next one. On failure the batch's paths (and queued writes made
 * on top of them) return to their last durable state and their writers get the error.
 */
export class CommitQueue {
  /** Last durable node (null: absent) of every path with unacknowledged changes. */
  private readonly baseline = new Map<string, Node | null>()
  private queue: Intent[] = []
  private queuedPaths = new Set<string>()
  private running: Promise<void> | null = null
  private scheduled = false
  /** The last write to each path that is not settled yet (see whenDurable). */
  private readonly lastWrite = new Map<string, Intent>()
  /** Errors of failed batches not yet reported by flush(). */
  private unreported: unknown[] = []

  constructor(
    private readonly treeOf: () => Tree,
    private readonly store: VfsStore,
    private readonly namespace: string,
    private readonly scope: string,
    private readonly onCommitted: (version: number, paths: string[], record: CommitRecord) => void,
    /** Called with the summed weights of writes that just settled (committed or failed). */
    private readonly onSettled: (weight: number) => void = ignore,
  ) {}

  /** Records the durable state of `path` before its first unacknowledged change. Call before changing it. */
  touch(path: string): void {
    if (!this.baseline.has(path)) this.baseline.set(path, this.treeOf().get(path) ?? null)
  }

  /** The last durable node of `path` this instance knows (undefined: absent), pending writes left out. */
  durableNode(path: string): Node | undefined {
    return this.baseline.has(path) ? (this.baseline.get(path) ?? undefined) : this.treeOf().get(path)
  }

  /** Paths with changes that are not durable yet. */
  pendingPaths(): IterableIterator<string> {
    return this.baseline.keys()
  }

  /**
   * Queues the paths a write changed; the promise settles when they are durable. `weight` is what
   * the caller counts for the write until then (handed back through onSettled). One promise per
   * write, settled by the commit itself: no chain of callbacks per write.
   */
  enqueue(paths: string[], deps: Dependencies = {}, actor?: string, weight = 0): Promise<number> {
    const intent: Intent = { paths, deps, actor, weight, done: undefined!, resolve: ignore, reject: ignore }
    intent.done = new Promise<number>((resolve, reject) => {
      intent.resolve = resolve
      intent.reject = reject
    })
    this.queue.push(intent)
    for (const p of paths) {
      this.queuedPaths.add(p)
      this.lastWrite.set(p, intent)
    }
    this.schedule()
    return intent.done
  }

  /** Settles when everything queued so far is durable; rejects with the first failure since the last flush. */
  async flush(): Promise<void> {
    await this.idle()
    const errors = this.unreported
    this.unreported = []
    if (errors.length > 0) throw errors[0]
  }

  /** Settles when nothing is queued or committing; reports nothing (flush() does). */
  async idle(): Promise<void> {
    while (this.running || this.queue.length > 0 || this.scheduled) {
      if (this.running) await this.running
      else await new Promise<void>(r => queueMicrotask(r))
    }
  }

  /** Settles when the last writes to these paths are durable; rejects with their failure, if any. */
  async whenDurable(paths: string[]): Promise<void> {
    await Promise.all(paths.map(p => this.lastWrite.get(p)?.done))
  }

  private schedule(): void {
    if (this.scheduled || this.running) return
    this.scheduled = true
    // A microtask, so that writes issued in the same tick share one commit.
    queueMicrotask(() => {
      this.scheduled = false
      if (!this.running && this.queue.length > 0) this.running = this.commitLoop()
    })
  }

  private async commitLoop(): Promise<void> {
    try {
      while (this.queue.length > 0) await this.commitNext()
    } finally {
      this.running = null
    }
  }

  private async commitNext(): Promise<void> {
    const intents = this.queue
    const paths = [...this.queuedPaths]
    this.queue = []
    this.queuedPaths = new Set()
    const nodes = new Map<string, Node | null>()
    const ops: StoreOp[] = []
    for (const path of paths) {
      const node = this.treeOf().get(path) ?? null
      nodes.set(path, node)
      const op = this.opFor(path, node)
      if (op) ops.push(op)
    }
    this.addDependencies(ops, intents, nodes)
    // Most writes carry no actor tag: then no map of them.
    let actors: Map<string, string | undefined> | undefined
    for (const intent of intents) {
      if (intent.actor === undefined && !actors) continue
      actors ??= new Map()
      for (const p of intent.paths) actors.set(p, intent.actor)
    }
    try {
      const record = await buildCommitRecord(
        ops,
        p => this.baseline.get(p) ?? null,
        p => actors?.get(p),
        this.store.history !== undefined,
      )
      const version = ops.length > 0 ? await this.store.commit(this.namespace, this.scope, ops, record) : 0
      this.succeeded(version, nodes)
      this.settle(intents, intent => intent.resolve(version))
      if (ops.length > 0) this.onCommitted(version, paths, record)
    } catch (cause) {
      const error =
        cause instanceof VfsError
          ? cause
          : new VfsError(
              'ESTORE',
              undefined,
              `the ${this.store.kind} store failed to commit ${ops.length} operation(s): ${String((cause as Error)?.message ?? cause)}`,
              { cause },
            )
      // A writer that ignores its promise must not crash the process: a handler is attached
      // before the rejection (not to every write up front: most never fail).
      this.settle(this.failed(paths, intents), intent => {
        intent.done.catch(ignore)
        intent.reject(error)
      })
      this.unreported.push(error)
    }
  }

  private settle(intents: Intent[], how: (intent: Intent) => void): void {
    let weight = 0
    for (const intent of intents) {
      for (const p of intent.paths) if (this.lastWrite.get(p) === intent) this.lastWrite.delete(p)
      weight += intent.weight
      how(intent)
    }
    if (weight !== 0) this.onSettled(weight)
  }

  /** Every write op expects the durable state it replaces (see expectationOf). */
  private opFor(path: string, node: Node | null): StoreOp | null {
    const base = this.baseline.get(path) ?? null
    if (node === null) {
      // Created and removed before it was ever durable: nothing to write, but the batch still
      // relies on the path being absent (a write there would have failed had it held a directory).
      if (base === null) return { op: 'check', path, expectedVersion: 0 }
      return { op: 'delete', path, expectedVersion: expectationOf(base) }
    }
    return {
      op: 'put',
      path,
      kind: node.kind,
      data: node.data,
      mtime: node.mtime,
      ctime: node.ctime,
      expectedVersion: expectationOf(base),
    }
  }

  /**
   * Adds the batch's reads as check ops (a path the batch writes needs none: its write op already
   * expects its durable version) and, for every subtree a write relied on (topmost ones only: the
   * check of a directory covers those below it), the number of durable entries below it, which is
   * the number of ops below it that expect an existing entry: a write that relies on a subtree
   * names every entry of it.
   */
  private addDependencies(ops: StoreOp[], intents: Intent[], writes: ReadonlyMap<string, unknown>): void {
    const checked = new Map<string, StoreOp>()
    for (const intent of intents) {
      for (const [path, node] of intent.deps.reads ?? []) {
        if (writes.has(path) || checked.has(path) || path === '/') continue
        const op: StoreOp = { op: 'check', path, expectedVersion: expectationOf(node) }
        checked.set(path, op)
        ops.push(op)
      }
    }
    const subtrees = [...new Set(intents.flatMap(i => i.deps.subtrees ?? []))].sort()
    const topmost = subtrees.filter((p, i) => !subtrees.slice(0, i).some(q => isWithin(p, q)))
    if (topmost.length === 0) return
    const byPath = new Map(ops.map(op => [op.path, op]))
    for (const dir of topmost) {
      let below = 0
      for (const op of ops) if (op.path !== dir && isWithin(op.path, dir) && op.expectedVersion !== 0) below++
      let own = byPath.get(dir)
      if (!own) {
        const base = this.baseline.has(dir) ? this.baseline.get(dir) : this.treeOf().get(dir)
        own = { op: 'check', path: dir, expectedVersion: expectationOf(base ?? null) }
        ops.push(own)
      }
      own.expectedBelow = below
    }
  }

  private succeeded(version: number, nodes: Map<string, Node | null>): void {
    for (const [path, node] of nodes) {
      if (node) {
        node.version = version
        node.pending = false
      }
      if (this.queuedPaths.has(path)) {
        // A newer write to this path waits in the queue: what we just committed is its base now.
        this.baseline.set(path, node)
        const newer = this.treeOf().get(path)
        if (newer && newer !== node && node) newer.version = node.version
      } else {
        this.baseline.delete(path)
      }
    }
  }

  /** Rolls back a failed batch and every queued write that builds on it; returns the intents to reject. */
  private failed(paths: string[], intents: Intent[]): Intent[] {
    const reverted = new Set(paths)
    const failedIntents = [...intents]
    // A write depends on a reverted path when it changed one inside or above it, read it, or
    // relied on a subtree that holds it.
    const touchesReverted = (intent: Intent) => {
      for (const r of reverted) {
        if (intent.paths.some(p => isWithin(p, r) || isWithin(r, p))) return true
        if (intent.deps.reads?.some(([p]) => p === r)) return true
        if (intent.deps.subtrees?.some(p => isWithin(r, p))) return true
      }
      return false
    }
    let grew = true
    while (grew) {
      grew = false
      for (const intent of this.queue) {
        if (failedIntents.includes(intent) || !touchesReverted(intent)) continue
        failedIntents.push(intent)
        for (const p of intent.paths) reverted.add(p)
        grew = true
      }
    }
    this.queue = this.queue.filter(i => !failedIntents.includes(i))
    this.queuedPaths = new Set(this.queue.flatMap(i => i.paths))
    // Restore parents before children so the tree's child index stays whole.
    for (const path of [...reverted].sort()) {
      if (!this.baseline.has(path)) continue
      this.treeOf().set(path, this.baseline.get(path) ?? null)
      this.baseline.delete(path)
    }
    return failedIntents
  }
}

/**
 * What a batch expects the store to hold where this instance's durable view has `node`: nothing,
 * a file at its version, or a directory (of any version: another writer may have created the same
 * directory; what matters is that it is still one, and what lies below it, see expectedBelow).
 * A directory that exists only as a parent of stored files (version 0, from a store that keeps no
 * directory entries) is expected absent, as the store reports it.
 */
function expectationOf(node: Node | null): Exclude<Expectation, null> {
  if (node === null) return 0
  if (node.kind === 'dir') return node.version === 0 ? 0 : 'dir'
  return node.version
}
