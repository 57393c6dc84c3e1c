import {
  DirectoryNotFoundError,
  UnsupportedGrepPatternError,
  type FileEntry,
  type FilesystemGrepOptions,
  type FilesystemGrepResult,
  type ListOptions,
  type WalkEntry,
  type WalkOptions,
} from '@mastra/core/workspace'
import { baseName, isVfsError, type Vfs, type VfsStat } from 'agent-vfs'
import { escapeGlob, MAX_GREP_CONTEXT, MAX_GREP_MATCHES } from 'agent-vfs/internal'
import { toMastraError } from './mastra-errors.js'

/*
 * VfsFilesystem's listings and search, as functions of the workspace: `path` is the path as the caller
 * wrote it (for errors), `dir`/`root` its normal form.
 */

/**
 * Entries of a directory, sorted. With `recursive`, the whole subtree down to `maxDepth` (default
 * 100; 0 = this directory only) and names relative to `path` (`sub/x.txt`). `extension`
 * (`'.md'` or `'md'`, or several) filters files; directories are always listed.
 */
export async function listEntries(vfs: Vfs, path: string, dir: string, options?: ListOptions): Promise<FileEntry[]> {
  let names: string[]
  try {
    names = await vfs.readdir(dir, { recursive: options?.recursive === true })
  } catch (error) {
    throw toMastraError(error, path, 'readdir', 'directory')
  }
  const maxDepth = options?.maxDepth ?? 100
  const extensions = options?.extension === undefined ? undefined : [options.extension].flat()
  const stats = await statsBelow(vfs, dir, options?.recursive === true)
  const entries: FileEntry[] = []
  for (const name of names) {
    if (options?.recursive && name.split('/').length - 1 > maxDepth) continue
    const s = stats(name)
    if (s.type === 'file' && extensions) {
      const base = baseName('/' + name)
      const dot = base.lastIndexOf('.')
      const ext = dot > 0 ? base.slice(dot) : ''
      if (!extensions.some(e => e === ext || (ext !== '' && e === ext.slice(1)))) continue
    }
    entries.push(s.type === 'file' ? { name, type: 'file', size: s.size } : { name, type: 'directory' })
  }
  return entries
}

/**
 * Type and size of the entries below `dir` (its children, or its whole subtree), by their name
 * relative to it, from one walk of the workspace. A name the walk does not list is a root a run
 * view shows before anything was written to it: a directory.
 */
async function statsBelow(vfs: Vfs, dir: string, recursive: boolean): Promise<(name: string) => Pick<VfsStat, 'type' | 'size'>> {
  const prefix = dir === '/' ? 1 : dir.length + 1
  const walked = await vfs.walk(`${escapeGlob(dir)}/${recursive ? '**' : '*'}`, { includeDirs: true })
  const byName = new Map(walked.entries.map(e => [e.path.slice(prefix), e]))
  return name => byName.get(name) ?? { type: 'directory', size: 0 }
}

/**
 * Every entry below a directory in one call (Mastra's list_files uses it instead of a `readdir` per
 * directory): `path` relative to `path` (`src/a.ts`), `name` the basename, files with their size.
 * `maxDepth` counts the directory's own entries as depth 1; names starting with `.` (and what is
 * below them) only with `includeHidden`.
 */
export async function walkEntries(vfs: Vfs, path: string, dir: string, options?: WalkOptions): Promise<WalkEntry[]> {
  let names: string[]
  try {
    names = await vfs.readdir(dir, { recursive: true })
  } catch (error) {
    throw toMastraError(error, path, 'walk', 'directory')
  }
  const maxDepth = options?.maxDepth ?? Infinity
  const stats = await statsBelow(vfs, dir, true)
  const entries: WalkEntry[] = []
  for (const rel of names) {
    const segments = rel.split('/')
    if (segments.length > maxDepth) continue
    if (!options?.includeHidden && segments.some(s => s.startsWith('.'))) continue
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
export async function grepEntries(vfs: Vfs, root: string, options: FilesystemGrepOptions): Promise<FilesystemGrepResult[]> {
  const { pattern, caseSensitive, includeHidden } = options
  const top = await statOrUndefined(vfs, root)
  if (!top) throw new DirectoryNotFoundError(options.path)
  let files: string[]
  if (top.type === 'file') files = [root]
  else {
    // The workspace's own walk: files only, with no stat per entry.
    const prefix = root === '/' ? 1 : root.length + 1
    const walked = await vfs.walk(`${escapeGlob(root)}/**`)
    files = walked.entries
      .map(e => e.path)
      .filter(
        p =>
          includeHidden ||
          !p
            .slice(prefix)
            .split('/')
            .some(s => s.startsWith('.')),
      )
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
      // The file's name as a literal glob: a name like app/[slug]/page.tsx, exactly.
      const paths = [escapeGlob(file)]
      found = await vfs.grep(pattern, { regex: true, ignoreCase: !caseSensitive, paths, maxMatches: room, context })
    } catch (error) {
      // A pattern JavaScript accepts but the workspace's matcher refuses: let Mastra search.
      if (isVfsError(error, 'EINVAL') && error.path === undefined) throw new UnsupportedGrepPatternError(pattern, error.message)
      throw toMastraError(error, options.path, 'grep', 'directory')
    }
    if (found.matches.length === 0) continue
    // The escaped name must have named this file alone; if not, let Mastra search by itself.
    if (found.matches.some(m => m.path !== file)) throw new UnsupportedGrepPatternError(pattern, `cannot search ${file} alone`)
    remaining -= found.matches.length
    results.push({
      path: top.type === 'file' ? baseName(file) : file.slice(root === '/' ? 1 : root.length + 1),
      matches: found.matches.map(m => ({
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

/** A path's stat, or undefined where nothing is (a missing path, or one under a file). */
export async function statOrUndefined(vfs: Vfs, p: string): Promise<VfsStat | undefined> {
  try {
    return await vfs.stat(p)
  } catch (error) {
    if (isVfsError(error, 'ENOENT') || isVfsError(error, 'ENOTDIR')) return undefined
    throw error
  }
}
