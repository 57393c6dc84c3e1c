import type { RE2JS } from 're2js'
import { candidateLines, type CandidateLines } from './grep-candidates.js'
import { compileRegex } from './regex.js'
import { regexEngine } from './regex-engine.js'
import type { GrepMatch } from './types.js'

/**
 * Finds matches in one text. Returns how many it added, at most `room`. `stop` is asked now and then
 * during a long text; when it says true the search ends early.
 */
export type LineMatcher = (text: string, path: string, out: GrepMatch[], room: number, context: number, stop?: () => boolean) => number

/** Lines searched between two calls of `stop`. */
const LINES_PER_CHECK = 1024

/** Characters of a text whose candidate lines are listed at once (see {@link candidateMatcher}). */
const CANDIDATE_WINDOW = 1 << 20

/**
 * Builds a matcher for a literal or a regular-expression pattern (see {@link compileRegex}: RE2
 * syntax, linear time). A regular expression is matched against each line on its own, as grep
 * does: `^` and `$` are the line's ends and a match never spans a line break.
 */
export function compileGrep(pattern: string, regex: boolean, ignoreCase: boolean): LineMatcher {
  if (!regex && !ignoreCase) return literalMatcher(pattern)
  return regexMatcher(compileRegex(regex ? pattern : regexEngine().RE2JS.quote(pattern), ignoreCase))
}

function regexMatcher(re: RE2JS): LineMatcher {
  const candidates = candidateLines(re)
  if (candidates) return candidateMatcher(re, candidates)
  return (text, path, out, room, context, stop) => {
    let added = 0
    let lineNo = 0
    for (let start = 0; start < text.length && added < room;) {
      const end = lineEnd(text, start)
      lineNo++
      if (lineNo % LINES_PER_CHECK === 0 && stop?.()) break
      const line = lineText(text, start, end)
      // test() runs RE2's DFA; the slower search for the column runs only on lines that match.
      if (re.test(line)) {
        out.push(matchAt(text, path, start + columnOf(re, line), start, lineNo, context))
        added++
      }
      if (end === text.length) break
      start = end + 1
    }
    return added
  }
}

/**
 * Tests only the lines that contain what every match must contain ({@link candidateLines}): on a
 * pattern with a rare word in it most of a text is never handed to the regex engine at all.
 */
function candidateMatcher(re: RE2JS, candidates: CandidateLines): LineMatcher {
  return (text, path, out, room, context, stop) => {
    let added = 0
    let tested = 0
    const lineOf = lineCounter(text)
    // A window at a time, ending at a line's end, so the list of line starts stays small.
    for (let from = 0; from < text.length && added < room;) {
      const edge = text.indexOf('\n', Math.min(text.length, from + CANDIDATE_WINDOW))
      const to = edge < 0 ? text.length : edge + 1
      for (const start of candidates(text, from, to)) {
        if (added >= room || (++tested % LINES_PER_CHECK === 0 && stop?.())) return added
        const line = lineText(text, start, lineEnd(text, start))
        if (re.test(line)) {
          out.push(matchAt(text, path, start + columnOf(re, line), start, lineOf(start), context))
          added++
        }
      }
      if (stop?.()) break
      from = to
    }
    return added
  }
}

/** Where the line starting at `start` ends: the index of its line break, or the text's length. */
function lineEnd(text: string, start: number): number {
  const end = text.indexOf('\n', start)
  return end < 0 ? text.length : end
}

/** The line from `start` to `end`, without the CR of a CRLF break. */
function lineText(text: string, start: number, end: number): string {
  return text.slice(start, end > start && text.charCodeAt(end - 1) === 13 ? end - 1 : end)
}

/**
 * Thread-steps (pattern size × characters) the search for a match's column may take. Locating a
 * match needs RE2's slower NFA; deciding whether a line matches needs only its DFA.
 */
const COLUMN_STEPS = 4_000_000

/**
 * Where the first match on a matching line starts. Within the first `COLUMN_STEPS / pattern size`
 * characters the NFA finds it exactly; on a longer line where none is found there, a binary search
 * with the DFA finds the start of the line's last match instead, so the cost stays bounded.
 */
function columnOf(re: RE2JS, line: string): number {
  const window = Math.max(1_024, Math.floor(COLUMN_STEPS / re.programSize()))
  if (line.length <= window) {
    const m = re.matcher(line)
    return m.find() ? m.start() : 0
  }
  const engine = re.re2()
  const [found, groups] = engine.matchWithGroup(line, 0, window, UNANCHORED, 1) as [boolean, number[] | null]
  // A match ending at the window's edge may only exist because the edge looks like the line's end.
  if (found && groups && groups[1] < window) return groups[0]
  // Largest k such that a match starts at or after k: the start of the last match.
  let lo = 0
  let hi = line.length
  while (lo < hi) {
    const mid = (lo + hi + 1) >>> 1
    if ((engine.matchWithGroup(line, mid, line.length, UNANCHORED, 0) as [boolean])[0]) lo = mid
    else hi = mid - 1
  }
  return lo
}

const UNANCHORED = 0

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
  return start => {
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
