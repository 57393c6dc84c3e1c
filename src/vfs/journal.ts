import { VfsError } from '../contract/errors.js'
import { isWithin } from '../contract/paths.js'
import type { StoreOp, VfsStore } from '../contract/store.js'
import type { Node, Tree } from './tree.js'

/** One caller's write: the paths it changed, and its promise to settle. */
interface Intent {
  paths: string[]
  resolve: () => void
  reject: (error: unknown) => void
}

/**
 * The write-through journal with group commit. A write changes the tree first, then joins the
 * queue; one commit runs at a time and takes everything queued, as one atomic store batch. While
 * it runs, new writes queue for the next one. On failure the batch's paths (and queued writes made
 * on top of them) return to their last durable state and their writers get the error.
 */
export class Journal {
  /** Last durable node (null: absent) of every path with unacknowledged changes. */
  private readonly baseline = new Map<string, Node | null>()
  private queue: Intent[] = []
  private queuedPaths = new Set<string>()
  private running: Promise<void> | null = null
  private scheduled = false
  /** The promise of the last write to each path that is not settled yet (see whenDurable). */
  private readonly lastWrite = new Map<string, Promise<void>>()
  /** Errors of failed batches not yet reported by flush(). */
  private unreported: unknown[] = []

  constructor(
    private readonly treeOf: () => Tree,
    private readonly store: VfsStore,
    private readonly namespace: string,
    private readonly scope: string,
    private readonly onCommitted: (version: number, paths: string[]) => void,
  ) {}

  /** Records the durable state of `path` before its first unacknowledged change. Call before changing it. */
  touch(path: string): void {
    if (!this.baseline.has(path)) this.baseline.set(path, this.treeOf().get(path) ?? null)
  }

  /** Paths with changes that are not durable yet. */
  pendingPaths(): IterableIterator<string> {
    return this.baseline.keys()
  }

  /** Queues the paths a write changed; the promise settles when they are durable. */
  enqueue(paths: string[]): Promise<void> {
    const done = new Promise<void>((resolve, reject) => {
      this.queue.push({ paths, resolve, reject })
      for (const p of paths) this.queuedPaths.add(p)
      this.schedule()
    })
    const settled = done.catch(() => undefined)
    for (const p of paths) this.lastWrite.set(p, done)
    void settled.then(() => {
      for (const p of paths) if (this.lastWrite.get(p) === done) this.lastWrite.delete(p)
    })
    return done
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
      else await new Promise<void>((r) => queueMicrotask(r))
    }
  }

  /** Settles when the last writes to these paths are durable; rejects with their failure, if any. */
  async whenDurable(paths: string[]): Promise<void> {
    await Promise.all(paths.map((p) => this.lastWrite.get(p)))
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
    try {
      const version = ops.length > 0 ? await this.store.commit(this.namespace, this.scope, ops) : 0
      this.succeeded(version, nodes)
      for (const intent of intents) intent.resolve()
      if (ops.length > 0) this.onCommitted(version, paths)
    } catch (cause) {
      const error =
        cause instanceof VfsError
          ? cause
          : new VfsError('ESTORE', undefined, `the ${this.store.kind} store failed to commit ${ops.length} operation(s): ${String((cause as Error)?.message ?? cause)}`, { cause })
      for (const intent of this.failed(paths, intents)) intent.reject(error)
      this.unreported.push(error)
    }
  }

  private opFor(path: string, node: Node | null): StoreOp | null {
    const base = this.baseline.get(path) ?? null
    if (node === null) {
      if (base === null) return null // created and removed before it was ever durable
      return { op: 'delete', path, expectedVersion: base.kind === 'dir' ? null : base.version }
    }
    const expectedVersion = node.kind === 'dir' ? null : base === null || base.kind === 'dir' ? 0 : base.version
    return { op: 'put', path, kind: node.kind, data: node.data, mtime: node.mtime, ctime: node.ctime, expectedVersion }
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
    const touchesReverted = (intent: Intent) =>
      intent.paths.some((p) => {
        for (const r of reverted) if (isWithin(p, r) || isWithin(r, p)) return true
        return false
      })
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
    this.queue = this.queue.filter((i) => !failedIntents.includes(i))
    this.queuedPaths = new Set(this.queue.flatMap((i) => i.paths))
    // Restore parents before children so the tree's child index stays whole.
    for (const path of [...reverted].sort()) {
      if (!this.baseline.has(path)) continue
      this.treeOf().set(path, this.baseline.get(path) ?? null)
      this.baseline.delete(path)
    }
    return failedIntents
  }
}
