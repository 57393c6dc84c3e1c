import { VfsError } from '../contract/errors.js'
import { changeRowBytes, type CommitRecord } from '../contract/history.js'
import type { VfsStore } from '../contract/store.js'
import type { Node, Tree } from './tree.js'
import type { VfsQuota } from './types.js'

/** What `HistoryUsage.bytes` adds per stored before-image besides its content (the adapters' estimate). */
const BLOB_OVERHEAD = 64
/** Room counted for a change's actor tag before its commit records the real one. */
const ACTOR_ALLOWANCE = 64

/**
 * The bytes a workspace's history holds, as the store's `history.usage()` counts them, kept current
 * without reading the store on every write: read when the workspace loads and after a collection,
 * then grown by every commit's record. A record's before-image whose content the store already
 * held is counted again until the next recount (the store skips it): the figure errs on the side
 * of the quota. Writes in flight are counted by their estimate until their commit lands.
 */
export class HistoryMeter {
  private stored = 0
  private pending = 0

  constructor(
    private readonly store: VfsStore,
    private readonly namespace: string,
    private readonly scope: string,
  ) {}

  /** History's bytes: recorded, plus the estimate of writes in flight. */
  get bytes(): number {
    return this.stored + this.pending
  }

  /** Reads the store's figure (on load, after gc). */
  async recount(): Promise<void> {
    if (!this.store.history) return
    this.stored = (await this.store.history.usage(this.namespace, this.scope)).bytes
  }

  /** A commit of this instance landed with `record`. */
  recorded(record: CommitRecord): void {
    if (!this.store.history) return // a store without history ignores the record
    let bytes = 0
    for (const c of record.changes) bytes += changeRowBytes(c)
    for (const b of record.blobs) bytes += b.data.length + BLOB_OVERHEAD
    this.stored += bytes
  }

  /**
   * Checks the quota for `changes` about to be applied to `tree` (EQUOTA, nothing written, when a
   * limit would be passed); resolves to their estimate, for {@link hold}.
   */
  admit(tree: Tree, quota: VfsQuota, changes: ReadonlyArray<readonly [string, Node | null]>): number {
    if (!this.store.history) return 0
    let history = 0
    let images = 0
    let live = 0
    for (const [p, node] of changes) {
      const old = tree.get(p)
      const oldSize = old?.kind === 'file' ? old.data.length : 0
      live += (node?.kind === 'file' ? node.data.length : 0) - oldSize
      if (old?.kind === 'file') images += oldSize + BLOB_OVERHEAD
      // A change row as changeRowBytes counts it: the hash of the content before (the one after is
      // not stored: see ChangeRecord.hashAfter), and room for an actor tag.
      history += 48 + p.length + (old?.kind === 'file' ? 64 : 0) + ACTOR_ALLOWANCE
    }
    history += images
    const path = changes[0]?.[0]
    const { maxHistoryBytes, maxStoredBytes } = quota
    if (maxHistoryBytes !== undefined && images > 0 && this.bytes + history > maxHistoryBytes)
      throw new VfsError(
        'EQUOTA',
        path,
        `the write keeps ${history} bytes of history (what it replaces), the scope's history would hold ${this.bytes + history} bytes and may hold ${maxHistoryBytes}; drop old history with gc() or raise quota.maxHistoryBytes`,
      )
    // A delete moves its bytes from the files to the history: it never needs room.
    if (maxStoredBytes !== undefined && live + images > 0 && tree.bytes + this.bytes + live + history > maxStoredBytes)
      throw new VfsError(
        'EQUOTA',
        path,
        `the write needs ${tree.bytes + this.bytes + live + history} bytes for files and history (history: ${this.bytes + history}), the scope allows ${maxStoredBytes}; drop old history with gc() or free files`,
      )
    return history
  }

  /** Counts `estimate` as history until {@link release} (when the write settles: its commit's record then counts). */
  hold(estimate: number): void {
    this.pending += estimate
  }

  release(estimate: number): void {
    this.pending -= estimate
  }
}
