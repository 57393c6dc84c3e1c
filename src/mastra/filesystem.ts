import type { RequestContext } from '@mastra/core/request-context'
// prettier-ignore
import {
  FileExistsError, FileNotFoundError, IsDirectoryError, MastraFilesystem, NotDirectoryError, PermissionError,
  UnsupportedGrepPatternError,
} from '@mastra/core/workspace'
// prettier-ignore
import type {
  CopyOptions, FileContent, FileEntry, FileStat, FilesystemGrepOptions, FilesystemGrepResult, FilesystemInfo, InstructionsOption,
  ListOptions, ProviderStatus, ReadOptions, RemoveOptions, WalkEntry, WalkOptions, WriteOptions,
} from '@mastra/core/workspace'
import { baseName, isVfsError, normalizePath, type Vfs, type VfsStat } from 'agent-vfs'
import { grepEntries, listEntries, statOrUndefined, walkEntries } from './filesystem-listing.js'
import { assertParentDirectory, writeIfUnchanged } from './filesystem-writes.js'
import { blames, toMastraError } from './mastra-errors.js'
import { toBuffer } from './node-buffer.js'

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

/**
 * Our MIME guesses, adjusted where Mastra's read_file would decide wrongly: it reads `text/*`, JSON,
 * XML and a few `application/*` types as text, images/PDF as media and anything else as binary.
 * JSON Lines is text, but `application/jsonl` is not on Mastra's list.
 */
const MIME_FOR_MASTRA: Record<string, string> = { 'application/jsonl': 'text/plain' }

/** What Mastra declares `readFile` to return: `string | Buffer` (Node's Buffer, whatever the type environment). */
type ReadResult = Awaited<ReturnType<MastraFilesystem['readFile']>>

/** Like Mastra's own provider ids: time plus randomness, so every instance differs. */
function uniqueSuffix(): string {
  return `${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`
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
    if (!options?.vfs || typeof options.vfs.readFile !== 'function')
      throw new TypeError('VfsFilesystem needs { vfs }, a workspace from openVfs()')
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
    if (options?.recursive === false) await assertParentDirectory(this.vfs, path, p)
    try {
      if (options?.overwrite === false) {
        // Version 0 means "must not exist": the check and the write are one step.
        return await this.vfs.writeFile(p, content, { expectedVersion: 0 })
      }
      if (options?.expectedMtime) return await writeIfUnchanged(this.vfs, path, p, content, options.expectedMtime)
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
    const source = await statOrUndefined(this.vfs, from)
    if (!source) throw new FileNotFoundError(src)
    const target = await statOrUndefined(this.vfs, to)
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
    if (options?.recursive === false) await assertParentDirectory(this.vfs, path, p)
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
    return listEntries(this.vfs, path, this.normal(path, 'readdir'), options)
  }

  /**
   * Every entry below a directory in one call (Mastra's list_files uses it instead of a `readdir` per
   * directory): `path` relative to `path` (`src/a.ts`), `name` the basename, files with their size.
   * `maxDepth` counts the directory's own entries as depth 1; names starting with `.` (and what is
   * below them) only with `includeHidden`.
   */

  async walk(path: string, options?: WalkOptions): Promise<WalkEntry[]> {
    await this.ensureReady()
    return walkEntries(this.vfs, path, this.normal(path, 'walk'), options)
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
    try {
      new RegExp(options.pattern)
    } catch (error) {
      throw new UnsupportedGrepPatternError(options.pattern, (error as Error).message)
    }
    return grepEntries(this.vfs, this.normal(options.path, 'grep'), options)
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
