import { isVfsError, normalizePath, parentOf, VfsError, type Vfs } from 'agent-vfs'

/**
 * What one command line changed, held in memory until it ends (apply.ts lands it as one group
 * commit). A staged directory is one the command created: nothing of the workspace below it shows
 * (it may replace a directory the command removed). `gone` hides the workspace entry at the path
 * and everything below it. A staged file keeps its appended parts apart, so `>>` in a loop does
 * not copy the file at every line.
 */
export type Staged = { kind: 'file'; parts: Uint8Array[]; size: number; mtime: number } | { kind: 'dir'; mtime: number } | { kind: 'gone' }

/** An entry as the command sees it: its own change, or the workspace's entry. */
export interface Seen {
  kind: 'file' | 'dir'
  size: number
  mtime: number
  /** The staged change, when the command made this entry. */
  staged?: Staged & { kind: 'file' | 'dir' }
}

/**
 * The staged changes over a workspace view; reads fall through to `reader`: the same view without
 * the history tag (the tag only marks writes, and reading through it costs a layer per call).
 */
export class Staging {
  readonly changes = new Map<string, Staged>()
  /** Staged names below each directory (created, written or removed), for listings. */
  private readonly children = new Map<string, Set<string>>()
  /** Bytes held by staged files: what `maxStagedBytes` bounds. */
  stagedBytes = 0

  constructor(
    readonly base: Vfs,
    readonly reader: Vfs = base,
  ) {}

  /** The entry at `path` as the command sees it, or null. */
  async lookup(path: string): Promise<Seen | null> {
    const p = normalizePath(path)
    const own = this.changes.get(p)
    if (own) return own.kind === 'gone' ? null : seenOf(own)
    if (this.hiddenByAncestor(p)) return null
    try {
      const st = await this.reader.stat(p)
      return { kind: st.type === 'directory' ? 'dir' : 'file', size: st.size, mtime: st.mtime }
    } catch (error) {
      if (isVfsError(error, 'ENOENT') || isVfsError(error, 'ENOTDIR')) return null
      throw error
    }
  }

  /** True when a staged ancestor (a removal, a file, or a directory the command made) hides the workspace at `p`. */
  hiddenByAncestor(p: string): boolean {
    for (let a = p; a !== '/';) {
      a = parentOf(a)
      const s = this.changes.get(a)
      if (s) return true
    }
    return false
  }

  /** The bytes of the file at `path` (ENOENT, EISDIR as the workspace says them). */
  async read(path: string): Promise<Uint8Array> {
    const p = normalizePath(path)
    const seen = await this.lookup(p)
    if (!seen) throw new VfsError('ENOENT', path, 'no such file')
    if (seen.kind === 'dir') throw new VfsError('EISDIR', path, 'this is a directory, not a file')
    if (seen.staged?.kind === 'file') return joined(seen.staged)
    return this.reader.readFile(p)
  }

  /** The text of the file at `path`: the workspace keeps a file's decoded text, so an unchanged file is not decoded again. */
  async readText(path: string): Promise<string> {
    const p = normalizePath(path)
    const own = this.changes.get(p)
    if (own?.kind === 'file') return decoder.decode(joined(own))
    if (own || this.hiddenByAncestor(p)) return decoder.decode(await this.read(p))
    return this.reader.readFile(p, 'utf8')
  }

  /** The names in the directory at `path`, sorted. */
  async list(path: string): Promise<string[]> {
    const p = normalizePath(path)
    const seen = await this.lookup(p)
    if (!seen) throw new VfsError('ENOENT', path, 'no such directory')
    if (seen.kind !== 'dir') throw new VfsError('ENOTDIR', path, 'this is a file, not a directory')
    const names = new Set<string>(seen.staged ? [] : await this.reader.readdir(p))
    for (const name of this.children.get(p) ?? []) {
      const s = this.changes.get(childPath(p, name))
      if (!s || s.kind === 'gone') names.delete(name)
      else names.add(name)
    }
    return [...names].sort()
  }

  /** Stages a file's whole content. */
  putFile(path: string, data: Uint8Array, now: number): void {
    this.dropBelow(path)
    this.set(path, { kind: 'file', parts: [data], size: data.length, mtime: now })
  }

  /** Appends to a staged file (the caller staged it first, with the workspace's content if any). */
  appendStaged(file: Staged & { kind: 'file' }, data: Uint8Array, now: number): void {
    file.parts.push(data)
    file.size += data.length
    file.mtime = now
    this.stagedBytes += data.length
  }

  mkdir(path: string, now: number): void {
    this.set(path, { kind: 'dir', mtime: now })
  }

  /** Removes the entry at `path` and everything below it. */
  remove(path: string): void {
    this.dropBelow(path)
    this.set(path, { kind: 'gone' })
  }

  private set(path: string, staged: Staged): void {
    const old = this.changes.get(path)
    if (old?.kind === 'file') this.stagedBytes -= old.size
    if (staged.kind === 'file') this.stagedBytes += staged.size
    this.changes.set(path, staged)
    const parent = parentOf(path)
    let names = this.children.get(parent)
    if (!names) this.children.set(parent, (names = new Set()))
    names.add(path.slice(parent === '/' ? 1 : parent.length + 1))
  }

  /** Forgets staged changes strictly below `path` (it is being replaced or removed as a whole). */
  private dropBelow(path: string): void {
    const names = this.children.get(path)
    if (!names) return
    for (const name of names) {
      const child = childPath(path, name)
      this.dropBelow(child)
      const old = this.changes.get(child)
      if (old?.kind === 'file') this.stagedBytes -= old.size
      this.changes.delete(child)
    }
    this.children.delete(path)
  }
}

// As the workspace decodes: a leading U+FEFF stays in the text (so ASCII text means ASCII bytes).
const decoder = new TextDecoder('utf-8', { ignoreBOM: true })

export const childPath = (dir: string, name: string) => (dir === '/' ? `/${name}` : `${dir}/${name}`)

function seenOf(s: Staged & { kind: 'file' | 'dir' }): Seen {
  return { kind: s.kind, size: s.kind === 'file' ? s.size : 0, mtime: s.mtime, staged: s }
}

/** A staged file's bytes in one array (joined once: later reads reuse it). */
export function joined(file: Staged & { kind: 'file' }): Uint8Array {
  if (file.parts.length === 1) return file.parts[0]
  const out = new Uint8Array(file.size)
  let at = 0
  for (const part of file.parts) {
    out.set(part, at)
    at += part.length
  }
  file.parts = [out]
  return out
}
