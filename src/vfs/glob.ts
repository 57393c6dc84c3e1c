import { normalizePath } from '../contract/paths.js'
import { VfsError } from '../contract/errors.js'
import { checkPattern } from './limits.js'
import { regexEngine } from './regex-engine.js'

export interface CompiledGlob {
  /** The longest directory prefix without wildcards; only paths below it can match. */
  base: string
  /** How many names deep a match can be (`/a/*` → 2); Infinity with `**` or a `/` inside braces. */
  depth: number
  test(path: string): boolean
}

/** A path as a glob that matches exactly that path, whatever characters its names hold. */
export function escapeGlob(path: string): string {
  return path.replace(/[*?[\]{}]/g, c => `[${c}]`)
}

const WILDCARD = /[*?[\]{}]/

/**
 * Compiles a glob pattern against absolute workspace paths. Relative patterns resolve against `/`
 * (`**\/*.md` matches every Markdown file). Dot files match like any other name: agents' files are
 * not hidden by convention. Syntax: `**` (any depth, as a whole segment), `*`, `?`, `[ab]`, `[a-z]`,
 * `[!ab]`, `{a,b}` (nestable); everything else is literal.
 *
 * The pattern becomes one RE2 expression, so matching a path takes time linear in its length
 * whatever the pattern (a backtracking matcher takes exponential time on `*a*a*a*a*b`).
 */
export function compileGlob(pattern: string): CompiledGlob {
  checkPattern('glob', pattern)
  if (pattern.trim() === '') throw new VfsError('EINVAL', pattern, 'a glob pattern must not be blank')
  if (pattern.includes('\\')) throw new VfsError('EINVAL', pattern, 'backslashes are not path separators here')
  // Written like paths are normalised: `//` and `/./` collapse, a trailing `/` goes.
  let absolute = ('/' + pattern).replace(/\/(?:\.?\/)+/g, '/').replace(/\/\.$/, '')
  if (absolute.length > 1 && absolute.endsWith('/')) absolute = absolute.slice(0, -1)
  const segments = absolute.split('/')
  const fixed: string[] = []
  for (const s of segments.slice(0, -1)) {
    if (WILDCARD.test(s)) break
    fixed.push(s)
  }
  const isGlob = WILDCARD.test(absolute)
  let base: string
  try {
    base = normalizePath(isGlob ? fixed.join('/') || '/' : absolute)
  } catch (error) {
    throw new VfsError('EINVAL', pattern, `the pattern's fixed part is not a valid path: ${(error as Error).message}`)
  }
  if (!isGlob) return { base, depth: base === '/' ? 0 : base.split('/').length - 1, test: p => p === base }
  const { RE2JS } = regexEngine()
  const re = RE2JS.compile(globToRegex(absolute, pattern))
  const unbounded = absolute.includes('**') || /\{[^}]*\//.test(absolute)
  // Everything after the last wildcard is literal: a cheap check that spares most paths the regex.
  const tail = /[^*?[\]{}]*$/.exec(absolute)![0]
  return { base, depth: unbounded ? Infinity : segments.length - 1, test: p => p.endsWith(tail) && re.matches(p) }
}

/** Translates a glob into an RE2 expression matching whole paths. */
function globToRegex(glob: string, original: string): string {
  const { RE2JS } = regexEngine()
  let out = ''
  let braces = 0
  let i = 0
  const bad = (why: string) => new VfsError('EINVAL', original, `invalid glob: ${why}`)
  const boundary = (c: string | undefined) => c === undefined || c === '/' || (braces > 0 && (c === ',' || c === '}'))
  const startsSegment = (at: number) => glob[at - 1] === '/' || (braces > 0 && (glob[at - 1] === '{' || glob[at - 1] === ','))
  while (i < glob.length) {
    const c = glob[i]
    if (c === '/' && glob.startsWith('**', i + 1) && boundary(glob[i + 3]) && glob[i + 3] !== '/') {
      out += '(?:/.*)?' // `a/**` matches `a` and everything below it
      i += 3
    } else if (c === '*' && glob[i + 1] === '*' && startsSegment(i) && boundary(glob[i + 2])) {
      if (glob[i + 2] === '/') {
        out += '(?:[^/]*/)*' // `**/` spans zero or more whole directories
        i += 3
      } else {
        out += '.*'
        i += 2
      }
    } else if (c === '*') {
      out += '[^/]*'
      while (glob[i] === '*') i++ // `***` is `*`
    } else if (c === '?') {
      out += '[^/]'
      i++
    } else if (c === '[') {
      const end = classEnd(glob, i)
      if (end < 0) throw bad('an unclosed [')
      out += classToRegex(glob.slice(i + 1, end))
      i = end + 1
    } else if (c === '{') {
      braces++
      out += '(?:'
      i++
    } else if (c === '}' && braces > 0) {
      braces--
      out += ')'
      i++
    } else if (c === ',' && braces > 0) {
      out += '|'
      i++
    } else {
      out += RE2JS.quote(c)
      i++
    }
  }
  if (braces > 0) throw bad('an unclosed {')
  return out
}

/** Index of the `]` closing the class opened at `start`, or -1. A `]` first in the class is literal. */
function classEnd(glob: string, start: number): number {
  let i = start + 1
  if (glob[i] === '!' || glob[i] === '^') i++
  if (glob[i] === ']') i++
  for (; i < glob.length; i++) {
    if (glob[i] === '/') return -1
    if (glob[i] === '[' && glob[i + 1] === ':') {
      const close = glob.indexOf(':]', i + 2)
      if (close > 0) i = close + 1
    } else if (glob[i] === ']') return i
  }
  return -1
}

function classToRegex(body: string): string {
  let negate = false
  if (body[0] === '!' || body[0] === '^') {
    negate = true
    body = body.slice(1)
  }
  let out = ''
  for (let i = 0; i < body.length; i++) {
    const c = body[i]
    const posix = c === '[' && body[i + 1] === ':' ? /^\[:[a-z]+:\]/.exec(body.slice(i)) : null
    if (posix) {
      out += posix[0]
      i += posix[0].length - 1
    } else if (c === '-' && i > 0 && i < body.length - 1) out += '-'
    else out += /[\\\][^-]/.test(c) ? '\\' + c : c
  }
  // A class never matches the separator: `[!a]` is one character of one name.
  return negate ? `[^/${out}]` : `(?:[${out}])`
}
