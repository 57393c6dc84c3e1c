import { VfsError } from '../contract/errors.js'
import { normalizePath } from '../contract/paths.js'
import { compileGlob, type CompiledGlob } from './glob.js'
import { compileGrep } from './grep.js'
import {
  checkPattern,
  deadlineOption,
  integerOption,
  MAX_GREP_CONTEXT,
  MAX_GREP_MATCHES,
  MAX_GREP_PATHS,
  stopWhen,
  WALK_CHECK_EVERY,
} from './limits.js'
import { nodeText, type Tree } from './tree.js'
import { walkTree } from './walk.js'
import type { GrepMatch, GrepOptions, GrepResult, WalkEntry, WalkOptions, WalkResult } from './types.js'

// The store workspace's searches over its in-memory tree: `walk` (and so `glob`) and `grep`.

/** Entries of `tree` matching a glob pattern; see `Vfs.walk`. */
export function walkEntries(tree: Tree, pattern: string, options: WalkOptions = {}): WalkResult {
  const glob = compileGlob(pattern)
  const limit = integerOption('limit', options.limit, Number.MAX_SAFE_INTEGER, 0, Number.MAX_SAFE_INTEGER)
  const stop = stopWhen(deadlineOption(options.deadline), options.signal)
  const filter = options.filter
  if (filter !== undefined && typeof filter !== 'function') throw new VfsError('EINVAL', undefined, 'filter must be a function')
  const entries: WalkEntry[] = []
  let truncated = false
  let seen = 0
  for (const path of candidates(tree, glob)) {
    if (++seen % WALK_CHECK_EVERY === 0 && stop()) {
      truncated = true
      break
    }
    const node = tree.get(path)!
    if (!glob.test(path) || (node.kind === 'dir' && !options.includeDirs) || (filter && !filter(path))) continue
    if (entries.length >= limit) {
      truncated = true
      break
    }
    entries.push({ path, type: node.kind === 'dir' ? 'directory' : 'file', size: node.data.length })
  }
  return { entries: entries.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0)), truncated }
}

/** Paths a glob could match: its base and, to the glob's depth, everything below it; lazily. */
function* candidates(tree: Tree, glob: CompiledGlob): Generator<string> {
  const base = tree.get(glob.base)
  if (!base) return
  yield glob.base
  if (base.kind === 'dir') yield* walkTree(tree, glob.base, glob.depth)
}

/** Searches the contents of the files of `tree`; see `Vfs.grep`. */
export function grepTree(tree: Tree, pattern: string, options: GrepOptions = {}): GrepResult {
  checkPattern('grep', pattern)
  const maxMatches = integerOption('maxMatches', options.maxMatches, 1000, 1, MAX_GREP_MATCHES)
  const context = integerOption('context', options.context, 0, 0, MAX_GREP_CONTEXT)
  const deadline = deadlineOption(options.deadline)
  const match = compileGrep(pattern, options.regex === true, options.ignoreCase === true)
  let stopped = false
  const due = stopWhen(deadline, options.signal)
  const stop = () => (stopped ||= due())
  const matches: GrepMatch[] = []
  let filesSearched = 0
  let seen = 0
  let truncated = false
  for (const path of grepFiles(tree, options.paths)) {
    if (++seen % WALK_CHECK_EVERY === 0 && stop()) break
    const node = tree.get(path)!
    if (node.kind !== 'file' || looksBinary(node.data)) continue
    filesSearched++
    const room = maxMatches - matches.length
    // Ask for one more than fits, to know whether the cap cut anything off.
    const added = match(nodeText(node), path, matches, room + 1, context, stop)
    if (added > room) {
      matches.pop()
      truncated = true
      break
    }
    if (stopped) break
  }
  return { matches, truncated: truncated || stopped, filesSearched }
}

/**
 * The files a grep searches, lazily, each once, in walk order, among the directories it walks
 * through (yielded too, so that the caller's deadline checks count them).
 */
function* grepFiles(tree: Tree, scopes: unknown): Generator<string> {
  if (scopes === undefined || (Array.isArray(scopes) && scopes.length === 0)) {
    yield* walkTree(tree, '/')
    return
  }
  if (!Array.isArray(scopes) || scopes.some(s => typeof s !== 'string'))
    throw new VfsError('EINVAL', undefined, 'paths must be an array of strings')
  if (scopes.length > MAX_GREP_PATHS)
    throw new VfsError(
      'EINVAL',
      undefined,
      `paths holds ${scopes.length} entries; at most ${MAX_GREP_PATHS} are allowed: pass a directory or a glob instead`,
    )
  // Check every scope before searching, so a typo fails at once instead of after a long search.
  const sources: Array<Iterable<string>> = []
  for (const s of scopes as string[]) {
    if (/[*?[\]{}]/.test(s)) {
      sources.push(globFiles(tree, compileGlob(s)))
      continue
    }
    const p = normalizePath(s)
    const node = tree.get(p)
    if (!node) throw new VfsError('ENOENT', s, 'grep path does not exist')
    sources.push(node.kind === 'file' ? [p] : walkTree(tree, p))
  }
  const seen = sources.length > 1 ? new Set<string>() : undefined
  for (const source of sources) {
    for (const p of source) {
      if (seen?.has(p)) continue
      seen?.add(p)
      yield p
    }
  }
}

/** Files a glob matches, and every directory walked to find them. */
function* globFiles(tree: Tree, glob: CompiledGlob): Generator<string> {
  for (const p of candidates(tree, glob)) if (tree.get(p)!.kind === 'dir' || glob.test(p)) yield p
}

function looksBinary(data: Uint8Array): boolean {
  const n = Math.min(data.length, 1024)
  for (let i = 0; i < n; i++) if (data[i] === 0) return true
  return false
}
