import type { BufferEncoding, CpOptions, FileContent, FsStat, IFileSystem, MkdirOptions, RmOptions } from 'just-bash'

type DirentEntry = Awaited<ReturnType<NonNullable<IFileSystem['readdirWithFileTypes']>>>[number]
import { isVfsError, normalizePath, parentOf, type Vfs } from 'agent-vfs'
import { FsError, posix } from './fs-errors.js'
import { childPath, Staging } from './staging.js'

const EMPTY = new Uint8Array(0)
const encoder = new TextEncoder()
const NOT_ASCII = /[^\x00-\x7f]/
/**
 * The one device: scripts send output there (`2>/dev/null`) all the time, and it is no file of
 * the workspace (a run may not write /dev, so each such line would fail). It reads empty and
 * swallows writes; it cannot be removed or replaced.
 */
const DEV_NULL = '/dev/null'
const PLAIN_ABSOLUTE = /^(?:\/(?!\.\.?(?:\/|$))[^/]+)+$/

/** Bounds on what one command line may stage (the workspace's quotas bound what lands). */
export interface StagingLimits {
  /** Bytes of files a command line may hold staged at once. */
  maxStagedBytes: number
  /** Paths a command line may change. */
  maxStagedPaths: number
}

/**
 * just-bash's filesystem over a workspace (or a run's view of one): reads come from the view (from
 * memory), and writes are staged (staging.ts) until the command line ends, when apply.ts lands
 * them as one group commit. Each write is checked against the view's rules when the command makes
 * it (a write into `/context` fails there, with EACCES), so a command sees a refusal at once.
 * Paths are resolved lexically: `..` never leaves the view, whose rules decide what exists.
 */
export class WorkspaceFs implements IFileSystem {
  /** The running command line's changes (one just-bash instance serves every command line of a shell). */
  staging: Staging
  /** Paths the view has already allowed a change at. */
  private writable = new Set<string>()

  /** `reader`: the view without its history tag, for reads (see Staging). */
  constructor(
    readonly view: Vfs,
    private readonly limits: StagingLimits,
    private readonly reader: Vfs = view,
  ) {
    this.staging = new Staging(view, reader)
  }

  /** Starts a command line: nothing staged, and the view asked afresh. */
  begin(): Staging {
    this.staging = new Staging(this.view, this.reader)
    this.writable = new Set()
    return this.staging
  }

  // ---- reads ---------------------------------------------------------------------------------

  async readFile(path: string, options?: { encoding?: BufferEncoding | null } | BufferEncoding): Promise<string> {
    const encoding = typeof options === 'string' ? options : (options?.encoding ?? 'utf8')
    if (encoding === 'binary' || encoding === 'latin1') return this.readFileBytes(path)
    if (lexical(path) === DEV_NULL) return ''
    return posix('open', path, () => this.staging.readText(lexical(path)))
  }

  /** The file's bytes as a string of char codes 0–255 (just-bash's ByteString). */
  async readFileBytes(path: string): Promise<never> {
    const p = lexical(path)
    if (p === DEV_NULL) return '' as never
    // ASCII text reads the same either way, and the workspace keeps it decoded: no byte is copied.
    const text = await posix('open', path, () => this.staging.readText(p))
    if (!NOT_ASCII.test(text)) return text as never
    return latin1(await this.readFileBuffer(path)) as never
  }

  readFileBuffer(path: string): Promise<Uint8Array> {
    const p = lexical(path)
    if (p === DEV_NULL) return Promise.resolve(new Uint8Array(0))
    return posix('open', path, () => this.staging.read(p))
  }

  async exists(path: string): Promise<boolean> {
    if (lexical(path) === DEV_NULL) return true
    try {
      return (await this.staging.lookup(lexical(path))) !== null
    } catch (error) {
      if (isVfsError(error)) return false
      throw error
    }
  }

  async stat(path: string): Promise<FsStat> {
    const p = lexical(path)
    if (p === DEV_NULL)
      return { isFile: true, isDirectory: false, isSymbolicLink: false, mode: 0o666, size: 0, mtime: new Date(0), identity: p }
    const seen = await posix('stat', path, () => this.staging.lookup(p))
    if (!seen) throw new FsError('ENOENT', 'stat', path)
    const dir = seen.kind === 'dir'
    return {
      // The workspace has no links: a normal path is the file. Commands that refuse to copy a file
      // onto itself (cp, mv, split) need this to tell two paths apart.
      identity: p,
      isFile: !dir,
      isDirectory: dir,
      isSymbolicLink: false,
      mode: dir ? 0o755 : 0o644,
      size: seen.size,
      mtime: new Date(seen.mtime),
    }
  }

  lstat(path: string): Promise<FsStat> {
    return this.stat(path)
  }

  readdir(path: string): Promise<string[]> {
    return posix('scandir', path, () => this.staging.list(lexical(path)))
  }

  async readdirWithFileTypes(path: string): Promise<DirentEntry[]> {
    const dir = lexical(path)
    const names = await this.readdir(path)
    // Asked together: one turn for the whole listing rather than one per entry.
    const seen = await posix('scandir', path, () => Promise.all(names.map(name => this.staging.lookup(childPath(dir, name)))))
    const out: DirentEntry[] = []
    names.forEach((name, i) => {
      const s = seen[i]
      if (s) out.push({ name, isFile: s.kind === 'file', isDirectory: s.kind === 'dir', isSymbolicLink: false })
    })
    return out
  }

  async realpath(path: string): Promise<string> {
    const p = lexical(path)
    if (!(await this.exists(p))) throw new FsError('ENOENT', 'realpath', path)
    return p
  }

  resolvePath(base: string, path: string): string {
    return lexical(path.startsWith('/') ? path : `${base}/${path}`)
  }

  /** Listing every path would load the whole workspace into a command's memory: globbing walks directories instead. */
  getAllPaths(): string[] {
    return []
  }

  // ---- writes (staged) -----------------------------------------------------------------------

  async writeFile(path: string, content: FileContent, options?: { encoding?: BufferEncoding } | BufferEncoding): Promise<void> {
    const p = lexical(path)
    if (p === DEV_NULL) return
    const data = toBytes(content, options)
    await this.prepareFile(p, 'open', path)
    this.room(data.length, 'open', path)
    this.staging.putFile(p, data, Date.now())
  }

  async appendFile(path: string, content: FileContent, options?: { encoding?: BufferEncoding } | BufferEncoding): Promise<void> {
    const p = lexical(path)
    if (p === DEV_NULL) return
    const data = toBytes(content, options)
    const seen = await this.prepareFile(p, 'open', path)
    this.room(data.length, 'open', path)
    let staged = seen?.staged
    if (staged?.kind !== 'file') {
      const before = seen ? await posix('open', path, () => this.view.readFile(p)) : EMPTY
      this.room(before.length, 'open', path)
      this.staging.putFile(p, before, Date.now())
      staged = this.staging.changes.get(p) as typeof staged
    }
    this.staging.appendStaged(staged as Extract<typeof staged, { kind: 'file' }>, data, Date.now())
  }

  async mkdir(path: string, options?: MkdirOptions): Promise<void> {
    const p = lexical(path)
    const seen = await posix('mkdir', path, () => this.staging.lookup(p))
    if (seen) {
      if (options?.recursive && seen.kind === 'dir') return
      throw new FsError('EEXIST', 'mkdir', path)
    }
    const parent = await posix('mkdir', path, () => this.staging.lookup(parentOf(p)))
    if (!parent) {
      if (!options?.recursive) throw new FsError('ENOENT', 'mkdir', path)
      await this.mkdir(parentOf(p), { recursive: true })
    } else if (parent.kind !== 'dir') throw new FsError('ENOTDIR', 'mkdir', path)
    await this.allow(p, 'mkdir', path)
    this.staging.mkdir(p, Date.now())
  }

  async rm(path: string, options?: RmOptions): Promise<void> {
    const p = lexical(path)
    if (p === DEV_NULL) throw new FsError('EPERM', 'rm', path, 'a device')
    const seen = await posix('rm', path, () => this.staging.lookup(p))
    if (!seen) {
      if (options?.force) return
      throw new FsError('ENOENT', 'rm', path)
    }
    if (p === '/') throw new FsError('EPERM', 'rm', path)
    if (seen.kind === 'dir' && !options?.recursive && (await this.staging.list(p)).length > 0) throw new FsError('ENOTEMPTY', 'rm', path)
    await this.allow(p, 'rm', path)
    this.staging.remove(p)
  }

  async cp(src: string, dest: string, options?: CpOptions): Promise<void> {
    const from = lexical(src)
    const seen = await posix('cp', src, () => this.staging.lookup(from))
    if (!seen) throw new FsError('ENOENT', 'cp', src)
    if (seen.kind === 'file') return this.writeFile(dest, await this.readFileBuffer(from))
    if (!options?.recursive) throw new FsError('EISDIR', 'cp', src)
    const to = lexical(dest)
    if (to === from || to.startsWith(from + '/')) throw new FsError('EINVAL', 'cp', dest, 'cannot copy a directory into itself')
    await this.mkdir(to, { recursive: true })
    for (const name of await this.readdir(from)) await this.cp(childPath(from, name), childPath(to, name), options)
  }

  async mv(src: string, dest: string): Promise<void> {
    const [from, to] = [lexical(src), lexical(dest)]
    if (from === to) return
    if (to.startsWith(from + '/')) throw new FsError('EINVAL', 'mv', dest, 'cannot move a directory into itself')
    await this.allow(from, 'mv', src)
    await this.cp(from, to, { recursive: true })
    await this.rm(from, { recursive: true })
  }

  async chmod(path: string): Promise<void> {
    if (!(await this.exists(path))) throw new FsError('ENOENT', 'chmod', path)
  }

  async utimes(path: string): Promise<void> {
    if (!(await this.exists(path))) throw new FsError('ENOENT', 'utime', path)
  }

  symlink(_target: string, linkPath: string): Promise<void> {
    return Promise.reject(new FsError('EPERM', 'symlink', linkPath, 'the workspace has no symbolic links'))
  }

  link(_existing: string, newPath: string): Promise<void> {
    return Promise.reject(new FsError('EPERM', 'link', newPath, 'the workspace has no hard links; use cp'))
  }

  readlink(path: string): Promise<string> {
    return Promise.reject(new FsError('EINVAL', 'readlink', path, 'the workspace has no symbolic links'))
  }

  // ---- checks --------------------------------------------------------------------------------

  /** A file is about to be written at `p`: its parents are made, the view allows it, it is no directory. */
  private async prepareFile(p: string, op: string, path: string) {
    const seen = await posix(op, path, () => this.staging.lookup(p))
    if (seen?.kind === 'dir') throw new FsError('EISDIR', op, path)
    if (!seen) {
      const parent = await posix(op, path, () => this.staging.lookup(parentOf(p)))
      if (parent && parent.kind !== 'dir') throw new FsError('ENOTDIR', op, path)
      if (!parent) await this.mkdir(parentOf(p), { recursive: true })
    }
    await this.allow(p, op, path)
    return seen
  }

  /**
   * Asks the view whether a change at `p` is allowed, without changing anything: a write that
   * expects a version no file has is refused by the view's rules first (EACCES), and otherwise by
   * the workspace's version check (ECONFLICT), before anything happens.
   */
  private async allow(p: string, op: string, path: string): Promise<void> {
    if (this.writable.has(p)) return
    if (this.staging.changes.size >= this.limits.maxStagedPaths)
      throw new FsError('EQUOTA', op, path, `a command line may change at most ${this.limits.maxStagedPaths} paths`)
    try {
      await this.view.writeFile(p, EMPTY, { expectedVersion: Number.MAX_SAFE_INTEGER })
    } catch (error) {
      const refused = !isVfsError(error) || !['ECONFLICT', 'EISDIR', 'ENOTDIR', 'ENOENT'].includes(error.code)
      if (refused) throw await posix(op, path, () => Promise.reject(error)).catch((e: unknown) => e)
    }
    this.writable.add(p)
  }

  private room(bytes: number, op: string, path: string): void {
    if (this.staging.stagedBytes + bytes > this.limits.maxStagedBytes)
      throw new FsError('EQUOTA', op, path, `a command line may stage at most ${this.limits.maxStagedBytes} bytes`)
  }
}

/** A path with `.` and `..` resolved against `/` (never above it), in the workspace's normal form. */
export function lexical(path: string): string {
  // Commands resolve every path they touch: one already absolute, without `.`, `..` or empty names, is kept.
  if (PLAIN_ABSOLUTE.test(path)) return normalizePath(path)
  const names: string[] = []
  for (const name of path.split('/')) {
    if (name === '' || name === '.') continue
    if (name === '..') names.pop()
    else names.push(name)
  }
  return normalizePath('/' + names.join('/'))
}

function toBytes(content: FileContent, options?: { encoding?: BufferEncoding } | BufferEncoding): Uint8Array {
  if (content instanceof Uint8Array) return content
  const encoding = typeof options === 'string' ? options : options?.encoding
  if (encoding === 'binary' || encoding === 'latin1') return Uint8Array.from(content, c => c.charCodeAt(0) & 0xff)
  return encoder.encode(content)
}

function latin1(bytes: Uint8Array): string {
  let out = ''
  for (let i = 0; i < bytes.length; i += 8192) out += String.fromCharCode(...bytes.subarray(i, i + 8192))
  return out
}
