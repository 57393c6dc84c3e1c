import { VfsError } from '../contract/errors.js'
import type {
  FileData, GlobOptions, GrepOptions, GrepResult, ReaddirOptions, RmdirOptions, Vfs, VfsChange, VfsStat, VfsUsage, WalkOptions, WalkResult, WriteOptions,
} from './types.js'

/** What a handle needs from its registry for one scope. */
export interface ScopeSlot {
  /** Runs `fn` on the scope's instance, opening it if it was evicted; the scope cannot be evicted meanwhile. */
  use<T>(fn: (vfs: Vfs) => Promise<T>): Promise<T>
  /** The instance, if it is in memory now. */
  resident(): Vfs | undefined
  /** Settles when an eviction of the scope in progress has flushed it. */
  settled(): Promise<void>
  /** Listens to the scope's changes, across evictions and reopenings. */
  subscribe(listener: (change: VfsChange) => void): () => void
}

/**
 * What `vfsRegistry().open()` hands out: the workspace of one scope, whether or not the registry
 * keeps it in memory. Every call goes to the scope's one instance; when the registry evicted it
 * (least recently used), the next call opens it again from the store, so a holder never loses a
 * write to an eviction. `close()` ends this handle only.
 */
export class ScopeHandle implements Vfs {
  private closed = false
  /** The last instance seen, for `usage()` while the scope is not in memory. */
  private last: Vfs

  constructor(
    readonly namespace: string,
    readonly scope: string,
    private readonly slot: ScopeSlot,
    current: Vfs,
  ) {
    this.last = current
  }

  readFile(path: string): Promise<Uint8Array>
  readFile(path: string, encoding: 'utf8' | 'utf-8'): Promise<string>
  readFile(path: string, encoding?: 'utf8' | 'utf-8'): Promise<Uint8Array | string> {
    return this.call<Uint8Array | string>(path, (v) => (encoding === undefined ? v.readFile(path) : v.readFile(path, encoding)))
  }
  writeFile(path: string, data: FileData, options?: WriteOptions): Promise<void> {
    return this.call(path, (v) => v.writeFile(path, data, options))
  }
  appendFile(path: string, data: FileData): Promise<void> {
    return this.call(path, (v) => v.appendFile(path, data))
  }
  deleteFile(path: string): Promise<void> {
    return this.call(path, (v) => v.deleteFile(path))
  }
  mkdir(path: string): Promise<void> {
    return this.call(path, (v) => v.mkdir(path))
  }
  rmdir(path: string, options?: RmdirOptions): Promise<void> {
    return this.call(path, (v) => v.rmdir(path, options))
  }
  readdir(path: string, options?: ReaddirOptions): Promise<string[]> {
    return this.call(path, (v) => v.readdir(path, options))
  }
  stat(path: string): Promise<VfsStat> {
    return this.call(path, (v) => v.stat(path))
  }
  exists(path: string): Promise<boolean> {
    return this.call(path, (v) => v.exists(path))
  }
  rename(from: string, to: string): Promise<void> {
    return this.call(from, (v) => v.rename(from, to))
  }
  copy(from: string, to: string): Promise<void> {
    return this.call(from, (v) => v.copy(from, to))
  }
  glob(pattern: string, options?: GlobOptions): Promise<string[]> {
    return this.call(pattern, (v) => v.glob(pattern, options))
  }
  walk(pattern: string, options?: WalkOptions): Promise<WalkResult> {
    return this.call(pattern, (v) => v.walk(pattern, options))
  }
  grep(pattern: string, options?: GrepOptions): Promise<GrepResult> {
    return this.call(undefined, (v) => v.grep(pattern, options))
  }
  flush(): Promise<void> {
    // Nothing in memory means nothing pending once the eviction (which flushes) is done.
    const v = this.slot.resident()
    return v ? v.flush() : this.slot.settled()
  }
  refresh(): Promise<void> {
    return this.call(undefined, (v) => v.refresh())
  }
  /** Waits for the scope's pending writes, then ends this handle; the registry and other handles go on. */
  async close(): Promise<void> {
    if (this.closed) return
    this.closed = true
    await this.slot.resident()?.flush().catch(() => undefined)
    for (const off of this.subscriptions) off()
    this.subscriptions.clear()
  }
  usage(): VfsUsage {
    return (this.slot.resident() ?? this.last).usage()
  }
  private readonly subscriptions = new Set<() => void>()
  onChange(listener: (change: VfsChange) => void): () => void {
    const off = this.slot.subscribe(listener)
    this.subscriptions.add(off)
    return () => {
      off()
      this.subscriptions.delete(off)
    }
  }

  private call<T>(path: string | undefined, fn: (vfs: Vfs) => Promise<T>): Promise<T> {
    if (this.closed) return Promise.reject(new VfsError('ECLOSED', path, 'this workspace handle is closed'))
    return this.slot.use((v) => {
      this.last = v
      return fn(v)
    })
  }
}
