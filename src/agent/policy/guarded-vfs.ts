import type {
  FileData, GlobOptions, GrepOptions, GrepResult, ReaddirOptions, RmdirOptions, Vfs, VfsChange, VfsStat, VfsUsage, WalkOptions, WalkResult,
  WriteOptions,
} from 'agent-vfs'
import { readTextNow, textReaderOf, type ReadsTextNow } from 'agent-vfs/internal'

/** One file operation, as a guard sees it: what it does to which path (as the caller wrote it). */
export interface FileOperation {
  access: 'read' | 'write'
  path: string
}

/** Throws (a `VfsError`, usually EACCES) when an operation is not allowed; returns when it is. */
export type OperationCheck = (op: FileOperation) => void

/**
 * A workspace whose every operation is checked first: nothing happens unless the check passes for
 * every path the operation reads or writes (both ends of a rename or copy). Listing and searching
 * are reads of the directory or pattern they cover. A run scope's `roots` are passed through, so a
 * run scope laid over the guarded workspace keeps its shape.
 */
export function guardVfs(vfs: Vfs, check: OperationCheck): Vfs {
  return new GuardedVfs(vfs, check)
}

class GuardedVfs implements Vfs, Partial<ReadsTextNow> {
  readonly namespace: string
  readonly scope: string
  readonly roots?: unknown
  readonly [readTextNow]?: (path: string) => string

  constructor(
    private readonly base: Vfs,
    private readonly check: OperationCheck,
  ) {
    this.namespace = base.namespace
    this.scope = base.scope
    const roots = (base as { roots?: unknown }).roots
    if (roots !== undefined) this.roots = roots
    // Keep run_js's promise-free read path (read-now.ts) when the workspace below has one.
    const read = textReaderOf(base)
    if (read) {
      this[readTextNow] = (path: string) => {
        check({ access: 'read', path })
        return read(path)
      }
    }
  }

  private read(path: string): void {
    this.check({ access: 'read', path })
  }

  private write(path: string): void {
    this.check({ access: 'write', path })
  }

  readFile(path: string): Promise<Uint8Array>
  readFile(path: string, encoding: 'utf8' | 'utf-8'): Promise<string>
  async readFile(path: string, encoding?: 'utf8' | 'utf-8'): Promise<Uint8Array | string> {
    this.read(path)
    return encoding === undefined ? this.base.readFile(path) : this.base.readFile(path, encoding)
  }

  async writeFile(path: string, data: FileData, options?: WriteOptions): Promise<void> {
    this.write(path)
    return this.base.writeFile(path, data, options)
  }

  async appendFile(path: string, data: FileData): Promise<void> {
    this.write(path)
    return this.base.appendFile(path, data)
  }

  async deleteFile(path: string): Promise<void> {
    this.write(path)
    return this.base.deleteFile(path)
  }

  async mkdir(path: string): Promise<void> {
    this.write(path)
    return this.base.mkdir(path)
  }

  async rmdir(path: string, options?: RmdirOptions): Promise<void> {
    this.write(path)
    return this.base.rmdir(path, options)
  }

  async readdir(path: string, options?: ReaddirOptions): Promise<string[]> {
    this.read(path)
    return this.base.readdir(path, options)
  }

  async stat(path: string): Promise<VfsStat> {
    this.read(path)
    return this.base.stat(path)
  }

  async exists(path: string): Promise<boolean> {
    this.read(path)
    return this.base.exists(path)
  }

  async rename(from: string, to: string): Promise<void> {
    this.write(from)
    this.write(to)
    return this.base.rename(from, to)
  }

  async copy(from: string, to: string): Promise<void> {
    this.read(from)
    this.write(to)
    return this.base.copy(from, to)
  }

  async glob(pattern: string, options?: GlobOptions): Promise<string[]> {
    this.read(pattern)
    return this.base.glob(pattern, options)
  }

  async walk(pattern: string, options?: WalkOptions): Promise<WalkResult> {
    this.read(pattern)
    return this.base.walk(pattern, options)
  }

  async grep(pattern: string, options?: GrepOptions): Promise<GrepResult> {
    const scopes = options?.paths && options.paths.length > 0 ? options.paths : ['/']
    for (const p of scopes) this.read(p)
    return this.base.grep(pattern, options)
  }

  flush(): Promise<void> {
    return this.base.flush()
  }

  refresh(): Promise<void> {
    return this.base.refresh()
  }

  /** A guarded view does not own the workspace: closing it only flushes. */
  close(): Promise<void> {
    return this.base.flush()
  }

  usage(): VfsUsage {
    return this.base.usage()
  }

  onChange(listener: (change: VfsChange) => void): () => void {
    return this.base.onChange(listener)
  }
}
