import { VfsError } from '../contract/errors.js'
import { isWithin, normalizePath } from '../contract/paths.js'
import { compileGlob } from './glob.js'
import { loadRegexEngine } from './regex-engine.js'
import { VfsLayer } from './layer.js'
import { readTextNow, textReaderOf } from './read-now.js'
import type { FileData, GlobOptions, GrepOptions, GrepResult, ReaddirOptions, Vfs, VfsChange, WalkOptions, WalkResult } from './types.js'

/**
 * A view of `vfs` in which everything at or below each mount point is another workspace's (at the
 * same path): e.g. an execution whose files go to a branch while `/state`, the runtime's record of
 * it, stays on the workspace itself (`mount(branch, { '/state': workspace })`). One layer
 * (layer.ts): single-path operations go to the workspace that owns the path; listings and searches
 * that span a mount point ask both sides and merge; a move across a mount point is refused
 * (EINVAL), a copy across one is a read and a write.
 */
export function mount(vfs: Vfs, mounts: Record<string, Vfs>): Vfs {
  const points = Object.entries(mounts).map(([path, target]) => {
    const point = normalizePath(path)
    if (point === '/') throw new VfsError('EINVAL', path, 'mount a workspace below /, not at /')
    return { point, target }
  })
  return new MountLayer(vfs, points)
}

interface MountPoint {
  point: string
  target: Vfs
}

class MountLayer extends VfsLayer {
  constructor(
    main: Vfs,
    private readonly points: readonly MountPoint[],
  ) {
    super(main)
    const sides = [main, ...points.map(p => p.target)]
    if (sides.every(v => textReaderOf(v)))
      (this as { [readTextNow]?: (path: string) => string | undefined })[readTextNow] = path => textReaderOf(this.owner(path))!(path)
  }

  /** The workspace that owns `path`. */
  private owner(path: string): Vfs {
    let p: string
    try {
      p = normalizePath(path)
    } catch {
      return this.base // the workspace below refuses the path with its own error
    }
    return this.points.find(m => isWithin(p, m.point))?.target ?? this.base
  }

  /** Mount points strictly below `path` (a listing or search there spans them). */
  private pointsUnder(path: string): MountPoint[] {
    return this.points.filter(m => m.point !== path && isWithin(m.point, path))
  }

  private mainOwns(path: string): boolean {
    return !this.points.some(m => isWithin(path, m.point))
  }

  protected override below<T>(path: string | undefined, fn: (vfs: Vfs) => Promise<T>): Promise<T> {
    return fn(path === undefined ? this.base : this.owner(path))
  }

  protected override belowNow(): Vfs | undefined {
    return undefined // readTextNow is routed by path above
  }

  override async rename(from: string, to: string): Promise<void> {
    if (this.owner(from) !== this.owner(to))
      throw new VfsError('EINVAL', to, `cannot move ${from} to ${to}: they are in different workspaces`)
    return super.rename(from, to)
  }

  override async copy(from: string, to: string): Promise<void> {
    if (this.owner(from) === this.owner(to)) return super.copy(from, to)
    const data: FileData = await this.readFile(from)
    return this.writeFile(to, data)
  }

  override async rmdir(path: string, options?: { recursive?: boolean }): Promise<void> {
    const p = normalizePath(path)
    if (this.pointsUnder(p).length > 0)
      throw new VfsError('EINVAL', path, `${p} holds another workspace's files (${this.pointsUnder(p)[0].point})`)
    return super.rmdir(path, options)
  }

  override async readdir(path: string, options?: ReaddirOptions): Promise<string[]> {
    const p = normalizePath(path)
    const inside = this.pointsUnder(p)
    if (inside.length === 0) return super.readdir(path, options)
    const prefix = p === '/' ? '/' : p + '/'
    const names = new Set((await this.base.readdir(p, options)).filter(n => this.mainOwns(prefix + n)))
    for (const m of inside) {
      const rest = m.point.slice(prefix.length)
      names.add(rest.split('/')[0])
      if (!options?.recursive || !(await m.target.exists(m.point))) continue
      for (const n of await m.target.readdir(m.point, options)) names.add(`${rest}/${n}`)
    }
    return [...names].sort()
  }

  override async glob(pattern: string, options?: GlobOptions): Promise<string[]> {
    const parts = await this.spanned(pattern)
    if (!parts) return super.glob(pattern, options)
    const out: string[] = []
    for (const [vfs, keep] of parts) out.push(...(await vfs.glob(pattern, options)).filter(keep))
    return out.sort()
  }

  override async walk(pattern: string, options?: WalkOptions): Promise<WalkResult> {
    const parts = await this.spanned(pattern)
    if (!parts) return super.walk(pattern, options)
    const result: WalkResult = { entries: [], truncated: false }
    for (const [vfs, keep] of parts) {
      const r = await vfs.walk(pattern, { ...options, filter: p => keep(p) && (!options?.filter || options.filter(p)) })
      result.entries.push(...r.entries)
      result.truncated ||= r.truncated
    }
    result.entries.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))
    if (options?.limit !== undefined && result.entries.length > options.limit) {
      result.entries.length = options.limit
      result.truncated = true
    }
    return result
  }

  override async grep(pattern: string, options: GrepOptions = {}): Promise<GrepResult> {
    const scopes = options.paths && options.paths.length > 0 ? options.paths : ['/']
    const groups = new Map<Vfs, string[]>()
    const add = (vfs: Vfs, p: string) => groups.set(vfs, [...(groups.get(vfs) ?? []), p])
    for (const s of scopes) {
      const p = typeof s === 'string' && !/[*?[\]{}]/.test(s) ? normalizePath(s) : s
      add(this.owner(p), p)
      for (const m of this.pointsUnder(p)) if (await m.target.exists(m.point)) add(m.target, m.point)
    }
    if (groups.size === 1) {
      const [[vfs, paths]] = [...groups]
      return vfs.grep(pattern, { ...options, paths })
    }
    const result: GrepResult = { matches: [], truncated: false, filesSearched: 0 }
    for (const [vfs, paths] of groups) {
      const r = await vfs.grep(pattern, { ...options, paths })
      result.matches.push(...r.matches.filter(m => this.owner(m.path) === vfs))
      result.truncated ||= r.truncated
      result.filesSearched += r.filesSearched
    }
    const max = options.maxMatches ?? 1000
    if (result.matches.length > max) {
      result.matches.length = max
      result.truncated = true
    }
    return result
  }

  /** For a pattern whose fixed prefix spans a mount point: each side and which of its paths it owns; else undefined. */
  private async spanned(pattern: string): Promise<Array<[Vfs, (path: string) => boolean]> | undefined> {
    await loadRegexEngine()
    const inside = this.pointsUnder(compileGlob(pattern).base)
    if (inside.length === 0) return undefined
    return [
      [this.base, p => this.mainOwns(p)],
      ...inside.map(m => [m.target, (p: string) => isWithin(p, m.point)] as [Vfs, (p: string) => boolean]),
    ]
  }

  override async flush(): Promise<void> {
    await Promise.all([this.base.flush(), ...this.points.map(m => m.target.flush())])
  }

  override async refresh(): Promise<void> {
    await Promise.all([this.base.refresh(), ...this.points.map(m => m.target.refresh())])
  }

  override onChange(listener: (change: VfsChange) => void): () => void {
    const offs = [this.base, ...this.points.map(m => m.target)].map(side =>
      side.onChange(change => {
        if (change.type !== 'commit') return listener(change)
        const own = (p: string) => this.owner(p) === side
        const paths = change.paths.filter(own)
        if (paths.length > 0) listener({ ...change, paths, changes: change.changes.filter(c => own(c.path)) })
      }),
    )
    return () => offs.forEach(off => off())
  }
}
