import picomatch from 'picomatch/posix.js'
import { normalizePath } from '../contract/paths.js'
import { VfsError } from '../contract/errors.js'

export interface CompiledGlob {
  /** The longest directory prefix without wildcards; only paths below it can match. */
  base: string
  test(path: string): boolean
}

/**
 * Compiles a glob pattern against absolute workspace paths. Relative patterns resolve against `/`
 * (`**\/*.md` matches every Markdown file). Dot files match like any other name: agents' files are
 * not hidden by convention.
 */
export function compileGlob(pattern: string): CompiledGlob {
  if (typeof pattern !== 'string' || pattern.trim() === '') throw new VfsError('EINVAL', String(pattern), 'a glob pattern must be a non-empty string')
  if (pattern.includes('\\')) throw new VfsError('EINVAL', pattern, 'backslashes are not path separators here')
  const absolute = pattern.startsWith('/') ? pattern : '/' + pattern
  const scan = picomatch.scan(absolute)
  let base: string
  try {
    base = normalizePath(scan.base === '' ? '/' : scan.base)
  } catch (error) {
    throw new VfsError('EINVAL', pattern, `the pattern's fixed part is not a valid path: ${(error as Error).message}`)
  }
  if (!scan.isGlob) return { base, test: (p) => p === base }
  const isMatch = picomatch(absolute, { dot: true })
  return { base, test: (p) => isMatch(p) }
}
