import { VfsError } from '../contract/errors.js'
import type { GrepMatch } from './types.js'

/** Finds matches in one text. Returns how many it added, at most `room`. */
export type LineMatcher = (text: string, path: string, out: GrepMatch[], room: number, context: number) => number

/** Builds a matcher for a literal or a regular-expression pattern. */
export function compileGrep(pattern: string, regex: boolean, ignoreCase: boolean): LineMatcher {
  if (typeof pattern !== 'string' || pattern === '') throw new VfsError('EINVAL', undefined, 'the grep pattern must be a non-empty string')
  if (!regex && !ignoreCase) return literalMatcher(pattern)
  let re: RegExp
  try {
    re = new RegExp(regex ? pattern : escapeRegExp(pattern), ignoreCase ? 'gim' : 'gm')
  } catch (error) {
    throw new VfsError('EINVAL', undefined, `invalid regular expression ${JSON.stringify(pattern)}: ${(error as Error).message}`)
  }
  return (text, path, out, room, context) => {
    re.lastIndex = 0
    let added = 0
    let lastLineStart = -1
    const lineOf = lineCounter(text)
    let m: RegExpExecArray | null
    while (added < room && (m = re.exec(text)) !== null) {
      if (m[0] === '') re.lastIndex++ // an empty match must not loop forever
      const start = lineStart(text, m.index)
      if (start === lastLineStart) continue // one match per line, like grep
      lastLineStart = start
      out.push(matchAt(text, path, m.index, start, lineOf(start), context))
      added++
      // Resume at the next line: further matches on this line are not reported.
      const end = text.indexOf('\n', m.index)
      if (end < 0) break
      re.lastIndex = Math.max(re.lastIndex, end + 1)
    }
    return added
  }
}

function literalMatcher(needle: string): LineMatcher {
  return (text, path, out, room, context) => {
    let added = 0
    let from = 0
    const lineOf = lineCounter(text)
    while (added < room) {
      const i = text.indexOf(needle, from)
      if (i < 0) break
      const start = lineStart(text, i)
      out.push(matchAt(text, path, i, start, lineOf(start), context))
      added++
      const end = text.indexOf('\n', i + needle.length)
      if (end < 0) break
      from = end + 1
    }
    return added
  }
}

function lineStart(text: string, index: number): number {
  return text.lastIndexOf('\n', index - 1) + 1
}

/** Line number of a line start; calls must come in increasing order (one pass over the text). */
function lineCounter(text: string): (start: number) => number {
  let line = 1
  let counted = 0
  return (start) => {
    for (let i = text.indexOf('\n', counted); i >= 0 && i < start; i = text.indexOf('\n', i + 1)) line++
    counted = start
    return line
  }
}

function matchAt(text: string, path: string, index: number, start: number, line: number, context: number): GrepMatch {
  let end = text.indexOf('\n', index)
  if (end < 0) end = text.length
  const match: GrepMatch = { path, line, column: index - start + 1, text: stripCr(text.slice(start, end)) }
  if (context > 0) {
    match.before = linesBefore(text, start, context)
    match.after = linesAfter(text, end, context)
  }
  return match
}

function linesBefore(text: string, start: number, count: number): string[] {
  const out: string[] = []
  let end = start - 1
  while (out.length < count && end >= 0) {
    const s = text.lastIndexOf('\n', end - 1) + 1
    out.unshift(stripCr(text.slice(s, end)))
    end = s - 1
  }
  return out
}

function linesAfter(text: string, end: number, count: number): string[] {
  const out: string[] = []
  let s = end + 1
  while (out.length < count && s <= text.length && end < text.length) {
    let e = text.indexOf('\n', s)
    if (e < 0) e = text.length
    out.push(stripCr(text.slice(s, e)))
    if (e === text.length) break
    s = e + 1
  }
  return out
}

function stripCr(line: string): string {
  return line.endsWith('\r') ? line.slice(0, -1) : line
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
}
