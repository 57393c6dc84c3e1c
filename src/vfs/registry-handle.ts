import { VfsError } from '../contract/errors.js'
import { VfsLayer } from './layer.js'
import type { Vfs, VfsChange, VfsUsage } from './types.js'

/** What a handle needs from its registry for one scope. */
export interface ScopeSlot {
  /** Runs `fn` on the scope's instance, opening it if it was evicted; the scope cannot be evicted meanwhile. */
  use<T>(fn: (vfs: Vfs) => Promise<T>): Promise<T>
  /** The instance, if it is in memory now. */
  resident(): Vfs | undefined
  /** The instance, if it is in memory now, marked most recently used: a synchronous read is a use too. */
  readable(): Vfs | undefined
  /** Settles when an eviction of the scope in progress has flushed it. */
  settled(): Promise<void>
  /** Listens to the scope's changes, across evictions and reopenings. */
  subscribe(listener: (change: VfsChange) => void): () => void
}

/**
 * What `vfsRegistry().open()` hands out: the workspace of one scope, whether or not the registry
 * keeps it in memory. It is a layer (layer.ts) whose workspace below is found at every call: the
 * scope's one instance, or, when the registry evicted it (least recently used), that instance
 * opened again from the store, so a holder never loses a write to an eviction. `close()` ends
 * this handle only.
 */
export class ScopeHandle extends VfsLayer {
  private closed = false
  /** The last instance seen, for `usage()` while the scope is not in memory. */
  private last: Vfs

  constructor(
    private readonly slot: ScopeSlot,
    current: Vfs,
  ) {
    super(current)
    this.last = current
  }

  protected override below<T>(path: string | undefined, fn: (vfs: Vfs) => Promise<T>): Promise<T> {
    if (this.closed) return Promise.reject(new VfsError('ECLOSED', path, 'this workspace handle is closed'))
    return this.slot.use(v => {
      this.last = v
      return fn(v)
    })
  }

  /** Only an instance in memory reads without a promise; otherwise readTextNow answers "not now". */
  protected override belowNow(): Vfs | undefined {
    return this.closed ? undefined : this.slot.readable()
  }

  override flush(): Promise<void> {
    // Nothing in memory means nothing pending once the eviction (which flushes) is done.
    const v = this.slot.resident()
    return v ? v.flush() : this.slot.settled()
  }

  /** Waits for the scope's pending writes, then ends this handle; the registry and other handles go on. */
  override async close(): Promise<void> {
    if (this.closed) return
    this.closed = true
    await this.slot
      .resident()
      ?.flush()
      .catch(() => undefined)
    for (const off of this.subscriptions) off()
    this.subscriptions.clear()
  }

  override usage(): VfsUsage {
    return (this.slot.resident() ?? this.last).usage()
  }

  private readonly subscriptions = new Set<() => void>()

  override onChange(listener: (change: VfsChange) => void): () => void {
    const off = this.slot.subscribe(listener)
    this.subscriptions.add(off)
    return () => {
      off()
      this.subscriptions.delete(off)
    }
  }
}
