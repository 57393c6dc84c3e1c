/**
 * One forwarding layer over a workspace: every view of a workspace (a run view, the agent's policy
 * guard, a registry handle, a read-only view) is this class with a few hooks, never a hand copy of
 * `Vfs`. It forwards every member and every side channel (the `readTextNow` reader, a run view's
 * `roots`, `resolve`, `seed` and `runId`), and lets a configuration
 *
 * - check an operation before anything happens (`check`: a policy, a read-only rule),
 * - map a caller's path to the path below (`mapIn`: a run's `/work` is `/runs/<id>/work`),
 * - map a path from below back for the caller, or hide it (`mapOut`: search results, change notices),
 * - rewrite an error from below (`mapError`: no inner path reaches an agent).
 *
 * Adding a `Vfs` method touches at most three files: `types.ts` (the interface), `vfs.ts` (the
 * store workspace) and this one (its forwarding member); every view then has it.
 */
import { readTextNow, type ReadsTextNow } from './read-now.js'
import type {
  FileData,
  GlobOptions,
  GrepOptions,
  GrepResult,
  ReaddirOptions,
  RmdirOptions,
  Vfs,
  VfsChange,
  VfsStat,
  VfsUsage,
  WalkOptions,
  WalkResult,
  WriteOptions,
} from './types.js'

/**
 * What an operation does with a path: `read` reads or lists it; `write` creates a directory there
 * (mkdir); `replace` puts an entry there (write, append, the target of a move or copy); `remove`
 * takes the entry away (delete, rmdir, the source of a move).
 */
export type Access = 'read' | 'write' | 'replace' | 'remove'

export interface LayerHooks {
  /** Throws (a `VfsError`, usually EACCES) to refuse an operation on `path` before anything happens. */
  check?(access: Access, path: string): void
  /** The path below for a caller's path; throws to refuse. Default: the same path. */
  mapIn?(path: string, access: Access): string
  /** The caller's path for a path below, or undefined for an entry the caller does not see. Default: the same. */
  mapOut?(path: string): string | undefined
  /** The error the caller sees for an error from below; `path` is the caller's path of the operation. */
  mapError?(error: unknown, path: string | undefined): unknown
}

/** Members of a run view that a layer over one passes through (see run-view.ts). */
const RUN_MEMBERS = ['roots', 'runId', 'resolve', 'seed'] as const

/**
 * The layer. Patterns (glob, walk, grep) are checked as reads of the pattern and reach the
 * workspace below unchanged, their results mapped out: a layer that moves paths (the run view)
 * overrides the searches. A view does not own the workspace below: `close()` only flushes it.
 */
export class VfsLayer implements Vfs, Partial<ReadsTextNow> {
  readonly namespace: string
  readonly scope: string
  readonly [readTextNow]?: (path: string) => string | undefined

  constructor(
    protected readonly base: Vfs,
    private readonly hooks: LayerHooks = {},
  ) {
    this.namespace = base.namespace
    this.scope = base.scope
    // Side channels exist on the layer only when the workspace below has them.
    if (typeof (base as Partial<ReadsTextNow>)[readTextNow] === 'function') this[readTextNow] = path => this.readNow(path)
    for (const name of RUN_MEMBERS) {
      const value = this.passRunMember(name, (base as unknown as Record<string, unknown>)[name])
      if (value === undefined) continue
      const own = typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(base) : value
      Object.defineProperty(this, name, { value: own, enumerable: true, configurable: true, writable: true })
    }
  }

  // ---- hooks (a subclass may override them instead of passing `hooks`) --------------------------

  protected check(access: Access, path: string): void {
    this.hooks.check?.(access, path)
  }

  protected mapIn(path: string, access: Access): string {
    return this.hooks.mapIn ? this.hooks.mapIn(path, access) : path
  }

  protected mapOut(path: string): string | undefined {
    return this.hooks.mapOut ? this.hooks.mapOut(path) : path
  }

  protected mapError(error: unknown, path: string | undefined): unknown {
    return this.hooks.mapError ? this.hooks.mapError(error, path) : error
  }

  /**
   * What the layer shows of a run view's member below it (`roots`, `runId`, `resolve`, `seed`);
   * undefined hides it. Default: the same. Called by the constructor, before subclass fields exist.
   */
  protected passRunMember(_name: string, value: unknown): unknown {
    return value
  }

  /** Runs `fn` on the workspace below (a registry handle reopens an evicted scope here). */
  protected below<T>(_path: string | undefined, fn: (vfs: Vfs) => Promise<T>): Promise<T> {
    return fn(this.base)
  }

  /** The workspace below if it can answer synchronously now, for `readTextNow`. */
  protected belowNow(): Vfs | undefined {
    return this.base
  }

  // ---- forwarding ----------------------------------------------------------------------------

  /**
   * Checks and maps the operation's paths in order, then runs it below; errors from below are
   * reported at `reportAt` (the last path: the target of a move or copy), refusals as they are.
   */
  protected forward<T>(
    paths: ReadonlyArray<readonly [string, Access]>,
    fn: (vfs: Vfs, inner: string[]) => Promise<T>,
    at: string | undefined = paths[0]?.[0],
  ): Promise<T> {
    const inner: string[] = []
    try {
      for (const [path, access] of paths) {
        this.check(access, path)
        inner.push(this.mapIn(path, access))
      }
    } catch (error) {
      return Promise.reject(error)
    }
    const reportAt = paths.length > 0 ? paths[paths.length - 1][0] : undefined
    return this.below(at, v => fn(v, inner)).catch((error: unknown) => {
      throw this.mapError(error, reportAt)
    })
  }

  /** readFile(path, 'utf8') without the promise (read-now.ts); undefined when only the promise can answer. */
  private readNow(path: string): string | undefined {
    this.check('read', path)
    const inner = this.mapIn(path, 'read')
    const below = this.belowNow() as Partial<ReadsTextNow> | undefined
    const read = below?.[readTextNow]
    if (typeof read !== 'function') return undefined
    try {
      return read.call(below, inner)
    } catch (error) {
      throw this.mapError(error, path)
    }
  }

  readFile(path: string): Promise<Uint8Array>
  readFile(path: string, encoding: 'utf8' | 'utf-8'): Promise<string>
  readFile(path: string, encoding?: 'utf8' | 'utf-8'): Promise<Uint8Array | string> {
    return this.forward<Uint8Array | string>([[path, 'read']], (v, [p]) =>
      encoding === undefined ? v.readFile(p) : v.readFile(p, encoding),
    )
  }

  writeFile(path: string, data: FileData, options?: WriteOptions): Promise<void> {
    return this.forward([[path, 'replace']], (v, [p]) => v.writeFile(p, data, options))
  }

  appendFile(path: string, data: FileData): Promise<void> {
    return this.forward([[path, 'replace']], (v, [p]) => v.appendFile(p, data))
  }

  deleteFile(path: string): Promise<void> {
    return this.forward([[path, 'remove']], (v, [p]) => v.deleteFile(p))
  }

  mkdir(path: string): Promise<void> {
    return this.forward([[path, 'write']], (v, [p]) => v.mkdir(p))
  }

  rmdir(path: string, options?: RmdirOptions): Promise<void> {
    return this.forward([[path, 'remove']], (v, [p]) => v.rmdir(p, options))
  }

  readdir(path: string, options?: ReaddirOptions): Promise<string[]> {
    return this.forward([[path, 'read']], (v, [p]) => v.readdir(p, options))
  }

  stat(path: string): Promise<VfsStat> {
    return this.forward([[path, 'read']], (v, [p]) => v.stat(p))
  }

  exists(path: string): Promise<boolean> {
    return this.forward([[path, 'read']], (v, [p]) => v.exists(p))
  }

  rename(from: string, to: string): Promise<void> {
    return this.forward(
      [
        [from, 'remove'],
        [to, 'replace'],
      ],
      (v, [f, t]) => v.rename(f, t),
    )
  }

  copy(from: string, to: string): Promise<void> {
    return this.forward(
      [
        [from, 'read'],
        [to, 'replace'],
      ],
      (v, [f, t]) => v.copy(f, t),
    )
  }

  async glob(pattern: string, options?: GlobOptions): Promise<string[]> {
    return this.outAll(await this.search([pattern], pattern, v => v.glob(pattern, options)))
  }

  async walk(pattern: string, options?: WalkOptions): Promise<WalkResult> {
    const r = await this.search([pattern], pattern, v => v.walk(pattern, options))
    const entries = []
    for (const e of r.entries) {
      const path = this.mapOut(e.path)
      if (path !== undefined) entries.push(path === e.path ? e : { ...e, path })
    }
    return { ...r, entries }
  }

  async grep(pattern: string, options?: GrepOptions): Promise<GrepResult> {
    const scopes = options?.paths && options.paths.length > 0 ? options.paths : ['/']
    const r = await this.search(scopes, undefined, v => v.grep(pattern, options))
    const matches = []
    for (const m of r.matches) {
      const path = this.mapOut(m.path)
      if (path !== undefined) matches.push(path === m.path ? m : { ...m, path })
    }
    return { ...r, matches }
  }

  /** A search: each of `reads` (patterns or directories) is checked as a read, and passes unchanged. */
  private search<T>(reads: readonly string[], at: string | undefined, fn: (vfs: Vfs) => Promise<T>): Promise<T> {
    try {
      for (const p of reads) this.check('read', p)
    } catch (error) {
      return Promise.reject(error)
    }
    return this.forward([], fn, at)
  }

  flush(): Promise<void> {
    return this.below(undefined, v => v.flush())
  }

  refresh(): Promise<void> {
    return this.forward([], v => v.refresh())
  }

  /** A view does not own the workspace below: closing it only flushes. */
  close(): Promise<void> {
    return this.flush()
  }

  usage(): VfsUsage {
    return this.base.usage()
  }

  onChange(listener: (change: VfsChange) => void): () => void {
    return this.base.onChange(change => {
      if (change.type !== 'commit') return listener(change)
      const paths = this.outAll(change.paths)
      if (paths.length === 0) return
      const same = paths.length === change.paths.length && paths.every((p, i) => p === change.paths[i])
      listener(same ? change : { ...change, paths })
    })
  }

  private outAll(paths: string[]): string[] {
    const out: string[] = []
    for (const p of paths) {
      const q = this.mapOut(p)
      if (q !== undefined) out.push(q)
    }
    return out
  }
}
