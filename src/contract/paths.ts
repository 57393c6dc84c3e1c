import { VfsError } from './errors.js'

/** Longest accepted path, in UTF-16 code units, and longest single name. Linux uses 4096 / 255 bytes. */
export const MAX_PATH_LENGTH = 4096
export const MAX_NAME_LENGTH = 255

/** A refused path: the advice is about paths, whatever else EINVAL may be about. */
function badPath(path: string, detail: string): VfsError {
  return new VfsError('EINVAL', path, detail, { hint: 'use an absolute POSIX path such as /work/notes.md' })
}

// A path that is already normal: absolute, no empty, '.' or '..' segments, no trailing slash, no
// backslash and none of the refused characters below (surrogates too: paths with emoji take the
// slow path, which tells pairs from lone halves). Most calls hit this and skip the slow path.
const NORMAL = /^(?:\/(?!\.\.?(?:\/|$))[^/\\\u0000-\u001f\u007f-\u009f\u061c\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff\ud800-\udfff]+)+$/

/**
 * Characters no name may hold, each with why: C0 and C1 controls (NUL, line breaks, escapes),
 * bidirectional controls (U+202E makes `evil\u202Etxt.js` display as `eviltxt.js`… reversed),
 * zero-width and invisible formatting characters (two names that look the same must be the
 * same), and lone surrogates (not text; stores that speak UTF-8 cannot keep them).
 * In `u` mode a surrogate pair is one code point, so only lone halves match the last class.
 */
const REFUSED: Array<[RegExp, string]> = [
  [/[\u0000-\u001f\u007f-\u009f]/u, 'a control character (C0/C1, NUL included)'],
  [
    /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/u,
    'a bidirectional control character (such as U+202E), which makes names display differently from what they are',
  ],
  [/[\u200b-\u200d\u2060-\u2065\ufeff]/u, 'an invisible (zero-width) formatting character'],
  [/[\ud800-\udfff]/u, 'a lone surrogate (not valid Unicode text)'],
]

/**
 * Normalises a caller's path to the one form the workspace stores: absolute, POSIX, no trailing
 * slash (`/` for the root). Relative paths resolve against `/`. `.` segments and repeated slashes
 * collapse, as in POSIX. `..`, backslashes, control characters (C0 and C1, NUL included),
 * bidirectional controls, zero-width characters, lone surrogates, empty paths and over-long names
 * are refused with EINVAL before anything happens.
 */
export function normalizePath(input: unknown): string {
  if (typeof input !== 'string') throw badPath(String(input), 'a path must be a string')
  if (input.length <= MAX_NAME_LENGTH && NORMAL.test(input)) return input
  if (input === '') throw badPath(input, 'the path is empty')
  if (input.length > MAX_PATH_LENGTH) throw badPath(input.slice(0, 64) + '…', `the path is longer than ${MAX_PATH_LENGTH} characters`)
  if (input.includes('\\')) throw badPath(input, 'backslashes are not path separators here')
  for (const [pattern, what] of REFUSED) {
    const found = pattern.exec(input)
    if (found) {
      const code = 'U+' + found[0].charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')
      throw badPath(input, `the path contains ${what} (${code} at index ${found.index})`)
    }
  }
  const names: string[] = []
  for (const name of input.split('/')) {
    if (name === '' || name === '.') continue
    if (name === '..') throw badPath(input, "'..' is not allowed in workspace paths")
    if (name.length > MAX_NAME_LENGTH) throw badPath(input, `a name is longer than ${MAX_NAME_LENGTH} characters`)
    names.push(name)
  }
  return '/' + names.join('/')
}

/** Parent directory of a normal path; the root is its own parent. */
export function parentOf(path: string): string {
  const i = path.lastIndexOf('/')
  return i <= 0 ? '/' : path.slice(0, i)
}

/** Last name of a normal path (`''` for the root). */
export function baseName(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1)
}

/** Joins a normal directory path and a name. */
export function joinPath(dir: string, name: string): string {
  return dir === '/' ? '/' + name : dir + '/' + name
}

/** True when `path` is `dir` itself or lies below it (both normal). */
export function isWithin(path: string, dir: string): boolean {
  return dir === '/' || path === dir || path.startsWith(dir + '/')
}

/** Every ancestor of a normal path, nearest last, excluding the root and the path itself. */
export function ancestorsOf(path: string): string[] {
  const out: string[] = []
  for (let i = path.indexOf('/', 1); i > 0; i = path.indexOf('/', i + 1)) out.push(path.slice(0, i))
  return out
}
