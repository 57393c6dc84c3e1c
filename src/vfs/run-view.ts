import { RUN_ROOTS, WRITABLE_ROOTS } from '../contract/layout.js'
import { VfsError } from '../contract/errors.js'
import { compileGlob, escapeGlob } from './glob.js'
import { compileGrep } from './grep.js'
import { loadRegexEngine } from './regex-engine.js'
import { checkPattern, integerOption, MAX_GREP_MATCHES, MAX_GREP_PATHS } from './limits.js'
import { ancestorsOf, isWithin, normalizePath } from '../contract/paths.js'
import { VfsLayer, type Access } from './layer.js'
import type {
  FileData,
  GlobOptions,
  GrepOptions,
  GrepResult,
  ReaddirOptions,
  Vfs,
  VfsStat,
  WalkEntry,
  WalkOptions,
  WalkResult,
} from './types.js'

/** How one logical root of a run maps onto the workspace. */
export interface RunRoot {
  /** Whether the agent may change files under this root. Read-only roots are filled with `seed()`. */
  writable: boolean
  /** Absolute workspace directory the root maps to. Default: `/runs/<runId>/<root name>`. */
  target?: string
}

export interface ScopeRunOptions {
  /** Names the run; letters, digits, `.`, `_` and `-`. */
  runId: string
  /**
   * The run's roots. Default: `context` and `skills` read-only, `work`, `outputs` and `state`
   * writable, all under `/runs/<runId>/`.
   */
  roots?: Record<string, RunRoot>
}

/** A run's view of a workspace: only its roots exist, and only writable roots can change. */
export interface RunVfs extends Vfs {
  readonly runId: string
  /** Root name → resolved mapping. */
  readonly roots: Readonly<Record<string, Required<RunRoot>>>
  /** Writes a file into any root, read-only ones included: how a runner provides `/context` and `/skills`. */
  seed(path: string, data: FileData): Promise<void>
  /** The workspace path a logical path maps to (EACCES outside the roots). */
  resolve(path: string): string
}

const RUN_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/
const GLOB_CHARS = /[*?[\]{}()!+@]/

/** Roots a run gets when `roots` is not given. */
export function defaultRunRoots(runId: string): Record<string, Required<RunRoot>> {
  const base = `/runs/${runId}`
  const writable = new Set<string>(WRITABLE_ROOTS)
  return Object.fromEntries(RUN_ROOTS.map(name => [name, { writable: writable.has(name), target: `${base}/${name}` }]))
}

/**
 * Restricts a workspace to one run's roots. Permissions are enforced here, in the file layer, so
 * file tools and run_js cannot differ: unknown roots and writes to read-only roots fail with EACCES,
 * and no path, however written, reaches anything outside the roots' targets.
 */
export function scopeRun(vfs: Vfs, options: ScopeRunOptions): RunVfs {
  const runId = options?.runId
  if (typeof runId !== 'string' || !RUN_ID.test(runId) || runId.includes('..')) {
    throw new VfsError('EINVAL', undefined, `runId must be 1-128 letters, digits, '.', '_' or '-', got ${JSON.stringify(runId)}`)
  }
  const roots: Record<string, Required<RunRoot>> = {}
  for (const [name, root] of Object.entries(options.roots ?? defaultRunRoots(runId))) {
    if (!/^[A-Za-z0-9._-]+$/.test(name) || name === '.' || name === '..')
      throw new VfsError('EINVAL', name, 'a root name must be one plain name')
    const target = normalizePath(root.target ?? `/runs/${runId}/${name}`)
    if (target === '/' || GLOB_CHARS.test(target))
      throw new VfsError('EINVAL', target, 'a root target must be a directory below / without glob characters')
    roots[name] = { writable: root.writable === true, target }
  }
  return new RunView(vfs, runId, Object.freeze(roots))
}

/**
 * The run view: a layer (layer.ts) that maps each root onto its target, refuses what the roots do
 * not allow, and rewrites errors and results into logical paths. The searches and the listing of
 * `/` are its own, because only it knows that `/` is made of roots.
 */
export class RunView extends VfsLayer implements RunVfs {
  constructor(
    base: Vfs,
    readonly runId: string,
    readonly roots: Readonly<Record<string, Required<RunRoot>>>,
  ) {
    super(base)
  }

  /** A run view shows its own roots, never those of a run view below it. */
  protected override passRunMember(): undefined {
    return undefined
  }

  protected override mapIn(path: string, access: Access): string {
    return this.map(path, access === 'read' ? undefined : access).inner
  }

  protected override mapOut(inner: string): string | undefined {
    return this.ownsInner(inner) ? this.toLogical(inner) : undefined
  }

  protected override mapError(error: unknown, path: string | undefined): unknown {
    return this.asLogical(path ?? '/', error)
  }

  resolve(path: string): string {
    return this.map(path).inner
  }

  override async readdir(path: string, options?: ReaddirOptions): Promise<string[]> {
    const p = normalizePath(path)
    if (p === '/') {
      const names = Object.keys(this.roots).sort()
      if (!options?.recursive) return names
      const out = [...names]
      for (const name of names) for (const sub of await this.readdir('/' + name, options)) out.push(`${name}/${sub}`)
      return out.sort()
    }
    const { inner, isRoot } = this.map(p)
    if (isRoot && !(await this.base.exists(inner))) return []
    return this.rethrowAs(p, () => this.base.readdir(inner, options))
  }

  override async stat(path: string): Promise<VfsStat> {
    const p = normalizePath(path)
    const { inner, isRoot } = p === '/' ? { inner: '', isRoot: true } : this.map(p)
    if (isRoot && (inner === '' || !(await this.base.exists(inner)))) {
      return { type: 'directory', size: 0, mtime: 0, ctime: 0, version: 0, mimeType: 'inode/directory' }
    }
    return this.rethrowAs(p, () => this.base.stat(inner))
  }

  override async exists(path: string): Promise<boolean> {
    const p = normalizePath(path)
    if (p === '/') return true
    const { inner, isRoot } = this.map(p)
    return isRoot || this.base.exists(inner)
  }

  override async glob(pattern: string, options: GlobOptions = {}): Promise<string[]> {
    const { includeDirs, deadline, signal } = options
    return (await this.walk(pattern, { includeDirs, deadline, signal })).entries.map(e => e.path)
  }

  override async walk(pattern: string, options: WalkOptions = {}): Promise<WalkResult> {
    await loadRegexEngine()
    const glob = compileGlob(pattern)
    const limit = integerOption('limit', options.limit, Number.MAX_SAFE_INTEGER, 0, Number.MAX_SAFE_INTEGER)
    const { filter } = options
    const entries: WalkEntry[] = []
    let truncated = false
    for (const [name, root] of this.rootsUnder(glob.base)) {
      const logical = (inner: string) => '/' + name + inner.slice(root.target.length)
      const r = await this.rethrowAs('/' + name, () =>
        this.base.walk(`${escapeGlob(root.target)}/**`, {
          ...options,
          limit: limit - entries.length,
          filter: inner => glob.test(logical(inner)) && (!filter || filter(logical(inner))),
        }),
      )
      for (const e of r.entries) entries.push({ ...e, path: logical(e.path) })
      if (r.truncated) {
        truncated = true
        break
      }
    }
    return { entries: entries.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0)), truncated }
  }

  override async grep(pattern: string, options: GrepOptions = {}): Promise<GrepResult> {
    // Refuse a bad pattern or option before walking anything.
    await loadRegexEngine()
    compileGrep(checkPattern('grep', pattern), options.regex === true, options.ignoreCase === true)
    const maxMatches = integerOption('maxMatches', options.maxMatches, 1000, 1, MAX_GREP_MATCHES)
    const scopes: unknown = options.paths
    if (scopes !== undefined && (!Array.isArray(scopes) || scopes.length > MAX_GREP_PATHS)) {
      throw new VfsError('EINVAL', undefined, `paths must be an array of at most ${MAX_GREP_PATHS} strings`)
    }
    const paths: string[] = []
    let globTruncated = false
    if (scopes && scopes.length > 0) {
      for (const s of scopes as string[]) {
        if (typeof s === 'string' && GLOB_CHARS.test(s)) {
          const found = await this.walk(s, { deadline: options.deadline, signal: options.signal })
          globTruncated ||= found.truncated
          paths.push(...found.entries.map(e => this.map(e.path).inner))
        } else paths.push(this.map(s).inner)
      }
      if (paths.length === 0) return { matches: [], truncated: globTruncated, filesSearched: 0 }
    } else {
      for (const root of Object.values(this.roots)) if (await this.base.exists(root.target)) paths.push(root.target)
      if (paths.length === 0) return { matches: [], truncated: false, filesSearched: 0 }
    }
    // A glob can name more files than one grep call takes: search them in batches.
    const result: GrepResult = { matches: [], truncated: false, filesSearched: 0 }
    for (let i = 0; i < paths.length; i += MAX_GREP_PATHS) {
      const room = maxMatches - result.matches.length
      // With no room left, one more match only tells whether the cap cut anything off.
      const batch = paths.slice(i, i + MAX_GREP_PATHS)
      const r = await this.rethrowAs('/', () => this.base.grep(pattern, { ...options, maxMatches: room === 0 ? 1 : room, paths: batch }))
      if (room === 0) {
        result.truncated = r.matches.length > 0 || r.truncated
        break
      }
      result.matches.push(...r.matches)
      result.filesSearched += r.filesSearched
      if (r.truncated) {
        result.truncated = true
        break
      }
    }
    result.truncated ||= globTruncated
    for (const m of result.matches) m.path = this.toLogical(m.path)
    return result
  }

  seed(path: string, data: FileData): Promise<void> {
    const { inner, isRoot } = this.map(path)
    if (isRoot) throw new VfsError('EISDIR', path, 'seed a file below the root, not the root itself')
    return this.rethrowAs(path, () => this.base.writeFile(inner, data))
  }

  // ---- mapping -------------------------------------------------------------------------------

  /**
   * Maps a logical path; refuses unknown roots and changes (`access`) to read-only roots. A root
   * itself stays a directory: it cannot be removed or moved (`remove`), nor replaced by a file or
   * by a copied or moved entry (`replace`); `mkdir` of a root (`write`) is fine.
   */
  private map(path: string, access?: 'write' | 'replace' | 'remove'): { inner: string; isRoot: boolean } {
    const p = normalizePath(path)
    const slash = p.indexOf('/', 1)
    const name = slash < 0 ? p.slice(1) : p.slice(1, slash)
    const root = Object.prototype.hasOwnProperty.call(this.roots, name) ? this.roots[name] : undefined
    if (!root)
      throw new VfsError(
        'EACCES',
        path,
        `${p === '/' ? 'the run root' : `/${name}`} is not a root of this run (roots: ${Object.keys(this.roots)
          .map(r => '/' + r)
          .join(', ')})`,
      )
    const isRoot = slash < 0
    if (access && !root.writable) throw new VfsError('EACCES', path, `/${name} is read-only in this run`)
    if (access === 'remove' && isRoot) throw new VfsError('EACCES', path, `the root /${name} itself cannot be removed or moved`)
    if (access === 'replace' && isRoot)
      throw new VfsError(
        'EISDIR',
        path,
        `the root /${name} is a directory and stays one; write to a path below it, such as /${name}/file.md`,
      )
    return { inner: isRoot ? root.target : root.target + p.slice(slash), isRoot }
  }

  /** Re-raises base errors in logical terms, so inner paths never reach the agent (see asLogical). */
  private async rethrowAs<T>(path: string, fn: () => Promise<T>): Promise<T> {
    try {
      return await fn()
    } catch (error) {
      throw this.asLogical(path, error)
    }
  }

  /**
   * The error the run shows: its path is the logical path of the entry the workspace named (the
   * caller's `path` when that entry lies outside every root), its message names roots by their
   * logical names and anything else of the workspace's layout as "outside this run". The inner
   * error is not kept as the cause: it names inner paths.
   */
  private asLogical(path: string, error: unknown): unknown {
    if (!(error instanceof VfsError)) return error
    const logical = error.path === undefined ? undefined : this.ownsInner(error.path) ? this.toLogical(error.path) : path
    const detail = this.scrub(error.detail)
    if (logical === error.path && detail === error.detail) return error
    return new VfsError(error.code, logical, detail)
  }

  /** Rewrites inner paths in a message: root targets become root names, their ancestors "outside this run". */
  private scrub(text: string): string {
    let out = text
    const byLength = Object.entries(this.roots).sort(([, a], [, b]) => b.target.length - a.target.length)
    for (const [name, root] of byLength) out = out.split(root.target).join('/' + name)
    for (const ancestor of this.innerAncestors) out = out.replace(ancestor.pattern, '$1(outside this run)')
    return out
  }

  /** Ancestors of the roots' targets (`/runs/<id>`, `/runs`), longest first, as patterns that match whole path prefixes. */
  private get innerAncestors(): Array<{ pattern: RegExp }> {
    if (this.ancestorPatterns) return this.ancestorPatterns
    const all = new Set<string>()
    for (const root of Object.values(this.roots)) for (const a of ancestorsOf(root.target)) all.add(a)
    this.ancestorPatterns = [...all]
      .sort((a, b) => b.length - a.length)
      .map(a => ({ pattern: new RegExp(`(^|[^\\w.-])${a.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?![\\w.-])`, 'g') }))
    return this.ancestorPatterns
  }

  private ancestorPatterns: Array<{ pattern: RegExp }> | undefined

  private rootsUnder(base: string): Array<[string, Required<RunRoot>]> {
    return Object.entries(this.roots).filter(([name]) => isWithin('/' + name, base) || isWithin(base, '/' + name))
  }

  private ownsInner(inner: string): boolean {
    return Object.values(this.roots).some(r => isWithin(inner, r.target))
  }

  private toLogical(inner: string): string {
    for (const [name, root] of Object.entries(this.roots)) {
      if (isWithin(inner, root.target)) return '/' + name + inner.slice(root.target.length)
    }
    return inner
  }
}
