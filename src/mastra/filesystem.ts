import type { RequestContext } from '@mastra/core/request-context'
import {
  DirectoryNotEmptyError, DirectoryNotFoundError, FileExistsError, FileNotFoundError, FilesystemError, IsDirectoryError,
  MastraFilesystem, NotDirectoryError, PermissionError, StaleFileError, UnsupportedGrepPatternError,
} from '@mastra/core/workspace'
import type {
  CopyOptions, FileContent, FileEntry, FileStat, FilesystemGrepOptions, FilesystemGrepResult, FilesystemInfo, InstructionsOption,
  ListOptions, ProviderStatus, ReadOptions, RemoveOptions, WalkEntry, WalkOptions, WriteOptions,
} from '@mastra/core/workspace'
import { baseName, escapeGlob, isVfsError, MAX_GREP_CONTEXT, MAX_GREP_MATCHES, normalizePath, parentOf, type Vfs, type VfsStat } from 'agent-vfs'

/** Options of {@link VfsFilesystem}. */
export interface VfsFilesystemOptions {
  /** The workspace (or a run scope of it) the filesystem reads and writes. */
  vfs: Vfs
  /**
   * Refuse every change with Mastra's `PermissionError`. Mastra then offers no write tools
   * (write_file, edit_file, delete, mkdir) to agents using this filesystem. Default false.
   */
  readOnly?: boolean
  /**
   * Filesystem id, unique per instance as Mastra requires. Default `agent-vfs:<namespace>/<scope>:<random>`:
   * two filesystems over one scope are still two providers.
   */
  id?: string
  /** Shown in Mastra UIs. */
  displayName?: string
  /** Shown in Mastra UIs. */
  description?: string
  /**
   * The text Mastra adds to the agent's system prompt about this filesystem: a string replaces the
   * default; a function (Mastra's `InstructionsOption`) gets `{ defaultInstructions, requestContext }`
   * on every prompt and returns the text, e.g. to add per-request details.
   */
  instructions?: InstructionsOption
  /** More file extensions Mastra's grep treats as text (see `MastraFilesystemOptions.textExtensions`). */
  textExtensions?: string[]
}

/** Metadata {@link VfsFilesystem.getInfo} reports. */
export interface VfsFilesystemMetadata extends Record<string, unknown> {
  /** The workspace's namespace. */
  namespace: string
  /** The workspace's scope (e.g. a session). */
  scope: string
}

/** Node's Buffer, as far as this file uses it (the package has no Node types; Mastra needs Node anyway). */
interface BufferLike extends Uint8Array {
  toString(encoding?: string): string
}
interface BufferStatic {
  from(data: ArrayBufferLike, byteOffset?: number, length?: number): BufferLike
  from(data: string, encoding?: string): BufferLike
}

function nodeBuffer(): BufferStatic {
  const B = (globalThis as { Buffer?: BufferStatic }).Buffer
  if (!B) throw new Error('VfsFilesystem needs the Buffer global (Node, or Workers with nodejs_compat), as @mastra/core does')
  return B
}

function toBuffer(bytes: Uint8Array): BufferLike {
  return nodeBuffer().from(bytes.buffer, bytes.byteOffset, bytes.byteLength)
}

/**
 * Our MIME guesses, adjusted where Mastra's read_file would decide wrongly: it reads `text/*`, JSON,
 * XML and a few `application/*` types as text, images/PDF as media and anything else as binary.
 * JSON Lines is text, but `application/jsonl` is not on Mastra's list.
 */
const MIME_FOR_MASTRA: Record<string, string> = { 'application/jsonl': 'text/plain' }

/** What Mastra declares `readFile` to return: `string | Buffer` (Node's Buffer, whatever the type environment). */
type ReadResult = Awaited<ReturnType<MastraFilesystem['readFile']>>

/** Whether a workspace error is about the source of a copy or move (as written, or normalised). */
function blames(error: unknown, src: string, from: string): boolean {
  return isVfsError(error) && (error.path === src || error.path === from)
}

/** Like Mastra's own provider ids: time plus randomness, so every instance differs. */
function uniqueSuffix(): string {
  return `${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`
}

/** Which kind of thing an operation expects at its path, to pick FileNotFound vs DirectoryNotFound. */
type Expect = 'file' | 'directory'

/**
 * Translates a workspace error into the `@mastra/core/workspace` error class Mastra's tools test
 * with `instanceof`. `path` is the path as the caller wrote it.
 */
function toMastraError(error: unknown, path: string, operation: string, expect: Expect = 'file'): unknown {
  if (!isVfsError(error)) return error
  let out: Error
  switch (error.code) {
    case 'ENOENT':
      out = expect === 'directory' ? new DirectoryNotFoundError(path) : new FileNotFoundError(path)
      break
    case 'EEXIST':
      out = new FileExistsError(path)
      break
    case 'EISDIR':
      out = new IsDirectoryError(path)
      break
    case 'ENOTDIR':
      out = new NotDirectoryError(path)
      break
    case 'ENOTEMPTY':
      out = new DirectoryNotEmptyError(path)
      break
    case 'EACCES':
      out = new PermissionError(path, operation)
      out.message += ` (${error.message})`
      break
    default:
      // EINVAL, ECONFLICT, EQUOTA, ECLOSED, ESTORE: no Mastra class of their own; keep our code and hint.
      out = new FilesystemError(error.message, error.code, path)
  }
  ;(out as { cause?: unknown }).cause = error
  return out
}

/**
 * Mastra's `WorkspaceFilesystem` over an agent-vfs workspace, so Mastra's built-in file tools
 * (read_file, write_file, edit_file, list_files, grep, …) and skills work on a persistent workspace
 * in any store. Built on `MastraFilesystem` and throwing `@mastra/core`'s own error classes.
 *
 * Behaves like Mastra's `LocalFilesystem` where its tools depend on it: paths may be relative
 * (`notes/a.md` is `/notes/a.md`); `writeFile` and `appendFile` create missing parents unless
 * `recursive === false`; `mkdir` is recursive by default and idempotent; recursive `readdir` names
 * are relative (`sub/x.txt`); `stat().mimeType` tells text from media; `writeFile` with
 * `expectedMtime` throws `StaleFileError` when the file changed since (checked against the
 * workspace's mtime, and made atomic with the file's version); reading without an encoding gives
 * a Buffer (skills rely on it). The workspace is loaded already, so `status` is `'ready'` from the
 * start; `destroy()` leaves the workspace open (its owner closes it).
 *
 * Skills (`new Workspace({ filesystem, skills: ['/skills'] })`) are read through this filesystem.
 * A directory's mtime changes only when the directory itself is created, not when files inside it
 * change, so Mastra's periodic skill re-discovery does not notice skills added later: call
 * `workspace.skills.refresh()` after adding one, and pass `checkSkillFileMtime: true` to pick up
 * edits of SKILL.md.
 *
 * ```ts
 * const workspace = new Workspace({ filesystem: new VfsFilesystem({ vfs }), skills: ['/skills'] })
 * const agent = new Agent({ id, name, instructions, model, workspace })
 * ```
 */
export class VfsFilesystem extends MastraFilesystem {
  /** Unique id of this filesystem. */
  readonly id: string
  /** Class name, as Mastra providers report it. */
  readonly name = 'VfsFilesystem'
  /** Provider type. */
  readonly provider = 'agent-vfs'
  /** Lifecycle status; the workspace is loaded before construction, so `'ready'`. */
  status: ProviderStatus = 'ready'
  /** True when every change is refused (and Mastra hides its write tools). */
  readonly readOnly: boolean
  /** The workspace behind this filesystem. */
  readonly vfs: Vfs
  /** Shown in Mastra UIs. */
  readonly displayName?: string
  /** Shown in Mastra UIs. */
  readonly description?: string
  private readonly instructions?: InstructionsOption

  constructor(options: VfsFilesystemOptions) {
    super({ name: 'VfsFilesystem', textExtensions: options.textExtensions })
    if (!options?.vfs || typeof options.vfs.readFile !== 'function') throw new TypeError('VfsFilesystem needs { vfs }, a workspace from openVfs()')
    this.vfs = options.vfs
    this.readOnly = options.readOnly === true
    this.id = options.id ?? `agent-vfs:${options.vfs.namespace}/${options.vfs.scope}:${uniqueSuffix()}`
    this.displayName = options.displayName
    this.description = options.description
    this.instructions = options.instructions
  }

  /** What Mastra adds to the agent's system prompt about this filesystem (see `instructions`). */
  getInstructions(opts?: { requestContext?: RequestContext }): string {
    if (typeof this.instructions === 'string') return this.instructions
    const defaultInstructions =
      'Files live in a persistent virtual workspace (agent-vfs): POSIX paths, relative paths resolve against "/". ' +
      (this.readOnly ? 'The workspace is read-only.' : 'Writes create missing parent directories.')
    if (typeof this.instructions === 'function') return this.instructions({ defaultInstructions, requestContext: opts?.requestContext })
    return defaultInstructions
  }

  /** Id, provider, status and the workspace's namespace and scope. */
  getInfo(): FilesystemInfo<VfsFilesystemMetadata> {
    return {
      id: this.id,
      name: this.name,
      provider: this.provider,
      status: this.status,
      error: this.error,
      readOnly: this.readOnly,
      metadata: { namespace: this.vfs.namespace, scope: this.vfs.scope },
    }
  }

  /** Nothing to do: the workspace was opened (hydrated) before it was passed in. */
  override async init(): Promise<void> {}

  /** Nothing to release: whoever opened the workspace closes it. */
  override async destroy(): Promise<void> {}

  /** In-memory filesystem: there is no host path. */
  resolveAbsolutePath(): string | undefined {
    return undefined
  }

  /** The normal absolute form of a path that exists. */
  async realpath(path: string): Promise<string> {
    const p = this.normal(path, 'realpath')
    if (!(await this.vfs.exists(p))) throw new FileNotFoundError(path)
    return p
  }

  /** File content: a Buffer without `encoding`, else a string in that encoding. */
  async readFile(path: string, options?: ReadOptions): Promise<ReadResult> {
    await this.ensureReady()
    const encoding = options?.encoding
    try {
      if (encoding === 'utf8' || encoding === 'utf-8') return await this.vfs.readFile(path, 'utf8')
      const bytes = await this.vfs.readFile(path)
      return encoding ? toBuffer(bytes).toString(encoding) : (toBuffer(bytes) as unknown as ReadResult)
    } catch (error) {
      throw toMastraError(error, path, 'readFile')
    }
  }

  /**
   * Writes a file, creating missing parents unless `recursive === false`. `overwrite: false`
   * refuses an existing file (FileExistsError); `expectedMtime` refuses a file whose modification
   * time is not exactly that one (StaleFileError). `mimeType` is ignored: types follow the name.
   */
  async writeFile(path: string, content: FileContent, options?: WriteOptions): Promise<void> {
    await this.ensureReady()
    this.assertWritable(path, 'writeFile')
    const p = this.normal(path, 'writeFile')
    if (options?.recursive === false) await this.assertParentDirectory(path, p)
    try {
      if (options?.overwrite === false) {
        // Version 0 means "must not exist": the check and the write are one step.
        return await this.vfs.writeFile(p, content, { expectedVersion: 0 })
      }
      if (options?.expectedMtime) return await this.writeIfUnchanged(path, p, content, options.expectedMtime)
      return await this.vfs.writeFile(p, content)
    } catch (error) {
      if (options?.overwrite === false && isVfsError(error, 'ECONFLICT')) throw new FileExistsError(path)
      throw toMastraError(error, path, 'writeFile')
    }
  }

  /** Appends to a file, creating it (and its parents) if missing. */
  async appendFile(path: string, content: FileContent): Promise<void> {
    await this.ensureReady()
    this.assertWritable(path, 'appendFile')
    try {
      await this.vfs.appendFile(path, content)
    } catch (error) {
      throw toMastraError(error, path, 'appendFile')
    }
  }

  /** Deletes a file; a missing one is FileNotFoundError unless `force`. */
  async deleteFile(path: string, options?: RemoveOptions): Promise<void> {
    await this.ensureReady()
    this.assertWritable(path, 'deleteFile')
    try {
      await this.vfs.deleteFile(path)
    } catch (error) {
      if (options?.force && isVfsError(error, 'ENOENT')) return
      throw toMastraError(error, path, 'deleteFile')
    }
  }

  /**
   * Copies a file, or a directory with `recursive` (merged into an existing target directory;
   * with `overwrite: false` existing files there are kept). `overwrite: false` refuses an
   * existing target file.
   */
  async copyFile(src: string, dest: string, options?: CopyOptions): Promise<void> {
    await this.ensureReady()
    this.assertWritable(dest, 'copyFile')
    const from = this.normal(src, 'copyFile')
    const to = this.normal(dest, 'copyFile')
    const source = await this.statOrUndefined(from)
    if (!source) throw new FileNotFoundError(src)
    const target = await this.statOrUndefined(to)
    try {
      if (source.type === 'directory') {
        if (!options?.recursive) throw new IsDirectoryError(src)
        if (!target) return await this.vfs.copy(from, to)
        if (target.type !== 'directory') throw new NotDirectoryError(dest)
        for (const rel of await this.vfs.readdir(from, { recursive: true })) {
          const file = `${from}/${rel}`
          if ((await this.vfs.stat(file)).type !== 'file') continue
          const copy = `${to}/${rel}`
          if (options.overwrite === false && (await this.vfs.exists(copy))) continue
          await this.vfs.copy(file, copy)
        }
        return
      }
      if (target && options?.overwrite === false) throw new FileExistsError(dest)
      await this.vfs.copy(from, to)
    } catch (error) {
      throw toMastraError(error, blames(error, src, from) ? src : dest, 'copyFile')
    }
  }

  /** Moves a file or directory atomically; `overwrite: false` refuses an existing target. */
  async moveFile(src: string, dest: string, options?: CopyOptions): Promise<void> {
    await this.ensureReady()
    this.assertWritable(src, 'moveFile')
    const from = this.normal(src, 'moveFile')
    const to = this.normal(dest, 'moveFile')
    if (!(await this.vfs.exists(from))) throw new FileNotFoundError(src)
    if (options?.overwrite === false && from !== to && (await this.vfs.exists(to))) throw new FileExistsError(dest)
    try {
      await this.vfs.rename(from, to)
    } catch (error) {
      throw toMastraError(error, blames(error, src, from) ? src : dest, 'moveFile')
    }
  }

  /**
   * Creates a directory with its missing parents (unless `recursive === false`, when the parent
   * must exist). An existing directory is fine; an existing file is FileExistsError.
   */
  async mkdir(path: string, options?: { recursive?: boolean }): Promise<void> {
    await this.ensureReady()
    this.assertWritable(path, 'mkdir')
    const p = this.normal(path, 'mkdir')
    if (options?.recursive === false) await this.assertParentDirectory(path, p)
    try {
      await this.vfs.mkdir(p)
    } catch (error) {
      throw toMastraError(error, path, 'mkdir', 'directory')
    }
  }

  /** Removes a directory; non-empty ones need `recursive`, missing ones are fine with `force`. */
  async rmdir(path: string, options?: RemoveOptions): Promise<void> {
    await this.ensureReady()
    this.assertWritable(path, 'rmdir')
    try {
      await this.vfs.rmdir(path, { recursive: options?.recursive === true })
    } catch (error) {
      if (options?.force && isVfsError(error, 'ENOENT')) return
      throw toMastraError(error, path, 'rmdir', 'directory')
    }
  }

  /**
   * Entries of a directory, sorted. With `recursive`, the whole subtree down to `maxDepth` (default
   * 100; 0 = this directory only) and names relative to `path` (`sub/x.txt`). `extension`
   * (`'.md'` or `'md'`, or several) filters files; directories are always listed.
   */
  async readdir(path: string, options?: ListOptions): Promise<FileEntry[]> {
    await this.ensureReady()
    const dir = this.normal(path, 'readdir')
    let names: string[]
    try {
      names = await this.vfs.readdir(dir, { recursive: options?.recursive === true })
    } catch (error) {
      throw toMastraError(error, path, 'readdir', 'directory')
    }
    const maxDepth = options?.maxDepth ?? 100
    const extensions = options?.extension === undefined ? undefined : [options.extension].flat()
    const stats = await this.statsBelow(dir, options?.recursive === true)
    const entries: FileEntry[] = []
    for (const name of names) {
      if (options?.recursive && name.split('/').length - 1 > maxDepth) continue
      const s = stats(name)
      if (s.type === 'file' && extensions) {
        const base = baseName('/' + name)
        const dot = base.lastIndexOf('.')
        const ext = dot > 0 ? base.slice(dot) : ''
        if (!extensions.some((e) => e === ext || (ext !== '' && e === ext.slice(1)))) continue
      }
      entries.push(s.type === 'file' ? { name, type: 'file', size: s.size } : { name, type: 'directory' })
    }
    return entries
  }

  /**
   * Every entry below a directory in one call (Mastra's list_files uses it instead of a `readdir` per
   * directory): `path` relative to `path` (`src/a.ts`), `name` the basename, files with their size.
   * `maxDepth` counts the directory's own entries as depth 1; names starting with `.` (and what is
   * below them) only with `includeHidden`.
   */
  /**
   * Type and size of the entries below `dir` (its children, or its whole subtree), by their name
   * relative to it, from one walk of the workspace. A name the walk does not list is a root a run
   * view shows before anything was written to it: a directory.
   */
  private async statsBelow(dir: string, recursive: boolean): Promise<(name: string) => Pick<VfsStat, 'type' | 'size'>> {
    const prefix = dir === '/' ? 1 : dir.length + 1
    const walked = await this.vfs.walk(`${escapeGlob(dir)}/${recursive ? '**' : '*'}`, { includeDirs: true })
    const byName = new Map(walked.entries.map((e) => [e.path.slice(prefix), e]))
    return (name) => byName.get(name) ?? { type: 'directory', size: 0 }
  }

  async walk(path: string, options?: WalkOptions): Promise<WalkEntry[]> {
    await this.ensureReady()
    const dir = this.normal(path, 'walk')
    let names: string[]
    try {
      names = await this.vfs.readdir(dir, { recursive: true })
    } catch (error) {
      throw toMastraError(error, path, 'walk', 'directory')
    }
    const maxDepth = options?.maxDepth ?? Infinity
    const stats = await this.statsBelow(dir, true)
    const entries: WalkEntry[] = []
    for (const rel of names) {
      const segments = rel.split('/')
      if (segments.length > maxDepth) continue
      if (!options?.includeHidden && segments.some((s) => s.startsWith('.'))) continue
      const s = stats(rel)
      const name = segments[segments.length - 1]!
      entries.push(s.type === 'file' ? { name, path: rel, type: 'file', size: s.size } : { name, path: rel, type: 'directory' })
    }
    return entries
  }

  /**
   * Content search by the workspace itself (Mastra's grep tool uses it instead of reading every file):
   * `pattern` is a JavaScript regular expression, matched per line; results per file, paths relative
   * to `path`, 1-based lines and 0-based UTF-16 columns, one match per line. Binary files are skipped.
   * At most `MAX_GREP_MATCHES` (10,000) matches and `MAX_GREP_CONTEXT` (20) context lines per side,
   * whatever is asked. A pattern the workspace cannot run throws Mastra's `UnsupportedGrepPatternError`,
   * and Mastra searches by itself.
   */
  async grep(options: FilesystemGrepOptions): Promise<FilesystemGrepResult[]> {
    await this.ensureReady()
    const { pattern, caseSensitive, includeHidden } = options
    try {
      new RegExp(pattern)
    } catch (error) {
      throw new UnsupportedGrepPatternError(pattern, (error as Error).message)
    }
    const root = this.normal(options.path, 'grep')
    const top = await this.statOrUndefined(root)
    if (!top) throw new DirectoryNotFoundError(options.path)
    let files: string[]
    if (top.type === 'file') files = [root]
    else {
      // The workspace's own walk: files only, with no stat per entry.
      const prefix = root === '/' ? 1 : root.length + 1
      const walked = await this.vfs.walk(`${escapeGlob(root)}/**`)
      files = walked.entries.map((e) => e.path).filter((p) => includeHidden || !p.slice(prefix).split('/').some((s) => s.startsWith('.')))
    }
    const perFile = Math.floor(options.maxCountPerFile ?? Infinity)
    // Sizes come from the model: capped at the workspace's own grep limits whatever it asks for (an
    // option out of range would be refused as EINVAL, and that would read as an unsupported pattern).
    let remaining = Math.floor(Math.min(options.maxTotalMatches ?? MAX_GREP_MATCHES, MAX_GREP_MATCHES))
    const context = Math.min(Math.max(0, Math.floor(options.contextLines ?? 0)), MAX_GREP_CONTEXT)
    const results: FilesystemGrepResult[] = []
    for (const file of files) {
      if (remaining <= 0) break
      const room = Math.min(perFile, remaining)
      if (room <= 0) continue
      let found
      try {
        found = await this.vfs.grep(pattern, { regex: true, ignoreCase: !caseSensitive, paths: [escapeGlob(file)] /* a name like app/[slug]/page.tsx, exactly */, maxMatches: room, context })
      } catch (error) {
        // A pattern JavaScript accepts but the workspace's matcher refuses: let Mastra search.
        if (isVfsError(error, 'EINVAL') && error.path === undefined) throw new UnsupportedGrepPatternError(pattern, error.message)
        throw toMastraError(error, options.path, 'grep', 'directory')
      }
      if (found.matches.length === 0) continue
      // The escaped name must have named this file alone; if not, let Mastra search by itself.
      if (found.matches.some((m) => m.path !== file)) throw new UnsupportedGrepPatternError(pattern, `cannot search ${file} alone`)
      remaining -= found.matches.length
      results.push({
        path: top.type === 'file' ? baseName(file) : file.slice(root === '/' ? 1 : root.length + 1),
        matches: found.matches.map((m) => ({
          line: m.line,
          column: m.column - 1,
          text: m.text,
          ...(m.before ? { before: m.before } : {}),
          ...(m.after ? { after: m.after } : {}),
        })),
      })
    }
    return results
  }

  /** Whether a file or directory exists (false for paths the workspace cannot hold). */
  async exists(path: string): Promise<boolean> {
    await this.ensureReady()
    try {
      return await this.vfs.exists(path)
    } catch (error) {
      if (isVfsError(error, 'EINVAL')) return false
      throw toMastraError(error, path, 'exists')
    }
  }

  /**
   * Name, absolute path, type, size, times and (files only) MIME type. `modifiedAt` is the value
   * to pass back as `expectedMtime`.
   */
  async stat(path: string): Promise<FileStat> {
    await this.ensureReady()
    const p = this.normal(path, 'stat')
    let s: VfsStat
    try {
      s = await this.vfs.stat(p)
    } catch (error) {
      throw toMastraError(error, path, 'stat')
    }
    const out: FileStat = {
      name: baseName(p),
      path: p,
      type: s.type,
      size: s.size,
      createdAt: new Date(s.ctime),
      modifiedAt: new Date(s.mtime),
    }
    if (s.type === 'file') out.mimeType = MIME_FOR_MASTRA[s.mimeType] ?? s.mimeType
    return out
  }

  // ---- helpers -------------------------------------------------------------------------------

  /**
   * Optimistic concurrency. The file must still have the modification time the caller saw (Mastra
   * keeps it as a Date, so millisecond resolution: a change landing in the very millisecond of the
   * caller's read goes unnoticed); the
   * write is then made conditional on the version that stat showed, so a write landing between
   * the check and ours is caught too. A write of the file still in flight (no version yet) is
   * waited for once, then checked again.
   */
  private async writeIfUnchanged(path: string, p: string, content: FileContent, expected: Date): Promise<void> {
    for (let attempt = 0; ; attempt++) {
      const current = await this.statOrUndefined(p)
      // A missing file cannot conflict (as in LocalFilesystem): it is written as new, atomically.
      if (current?.type === 'directory') throw new IsDirectoryError(path)
      if (current && current.mtime !== expected.getTime()) throw new StaleFileError(path, expected, new Date(current.mtime))
      try {
        return await this.vfs.writeFile(p, content, { expectedVersion: current?.version ?? 0 })
      } catch (error) {
        if (!isVfsError(error, 'ECONFLICT')) throw error
        if (attempt > 0) {
          const now = await this.statOrUndefined(p)
          throw new StaleFileError(path, expected, new Date(now?.mtime ?? Date.now()))
        }
        await this.vfs.flush().catch(() => undefined)
      }
    }
  }

  private async statOrUndefined(p: string): Promise<VfsStat | undefined> {
    try {
      return await this.vfs.stat(p)
    } catch (error) {
      if (isVfsError(error, 'ENOENT') || isVfsError(error, 'ENOTDIR')) return undefined
      throw error
    }
  }

  private async assertParentDirectory(path: string, p: string): Promise<void> {
    const parent = parentOf(p)
    const s = await this.statOrUndefined(parent)
    if (!s) throw new DirectoryNotFoundError(parentOf(path.startsWith('/') ? path : '/' + path))
    if (s.type !== 'directory') throw new NotDirectoryError(parent)
  }

  private assertWritable(path: string, operation: string): void {
    if (this.readOnly) throw new PermissionError(path, `${operation} (the filesystem is read-only)`)
  }

  private normal(path: string, operation: string): string {
    try {
      return normalizePath(path)
    } catch (error) {
      throw toMastraError(error, String(path), operation)
    }
  }
}
