/**
 * Finds the static imports of a program or module without a parser. QuickJS's module loader is
 * synchronous in the build run_js uses, so the host reads every module a program needs before it
 * compiles (host/modules.ts); this scan tells it which. A miss is not a hole: QuickJS asks the
 * loader for every module it actually needs, and the loader refuses what was not read ahead.
 */

/** One `import … from '…'` / `import '…'` / `export … from '…'` / `import('…')` found in a source. */
export interface FoundImport {
  specifier: string
  /** Offsets of the whole declaration (static `import` at the top level only; for hoisting). */
  start: number
  end: number
  /** A static `import` declaration at brace depth 0 (one a function body cannot hold). */
  hoistable: boolean
  /** `import('…')`: loaded when the program reaches it (a failure to read it ahead waits until then). */
  dynamic?: true
  /** `import type …` (TypeScript): erased, never loaded. */
  typeOnly?: boolean
}

interface Token {
  kind: 'word' | 'string' | 'punct' | 'template' | 'regex'
  text: string
  start: number
  end: number
  depth: number
}

const KINDS = ['word', 'string', 'punct', 'template', 'regex'] as const
const [WORD, STRING, PUNCT, TEMPLATE, REGEX] = [0, 1, 2, 3, 4]

/**
 * The tokens of a source, kept in typed arrays: a megabyte of program is some 300,000 tokens, and
 * as objects their allocation and collection cost seconds. A {@link Token} object is made only for
 * the few tokens around an `import` or `export`.
 */
class Tokens {
  length = 0
  private kinds = new Uint8Array(1024)
  private starts = new Int32Array(1024)
  private ends = new Int32Array(1024)
  private depths = new Int32Array(1024)

  constructor(readonly source: string) {}

  push(kind: number, start: number, end: number, depth: number): void {
    if (this.length === this.kinds.length) this.grow()
    const k = this.length++
    this.kinds[k] = kind
    this.starts[k] = start
    this.ends[k] = end
    this.depths[k] = depth
  }

  kind(k: number): number {
    return this.kinds[k]
  }

  /** Whether token `k` is the word `word` (no string is made). */
  isWord(k: number, word: string): boolean {
    return this.kinds[k] === WORD && this.ends[k] - this.starts[k] === word.length && this.source.startsWith(word, this.starts[k])
  }

  text(k: number): string {
    const kind = this.kinds[k]
    return kind === TEMPLATE || kind === REGEX ? '' : this.source.slice(this.starts[k], this.ends[k])
  }

  /** Token `k` as an object, or undefined past either end. */
  at(k: number): Token | undefined {
    if (k < 0 || k >= this.length) return undefined
    return { kind: KINDS[this.kinds[k]], text: this.text(k), start: this.starts[k], end: this.ends[k], depth: this.depths[k] }
  }

  private grow(): void {
    const size = this.kinds.length * 2
    const more = <T extends Uint8Array | Int32Array>(old: T, made: T): T => (made.set(old), made)
    this.kinds = more(this.kinds, new Uint8Array(size))
    this.starts = more(this.starts, new Int32Array(size))
    this.ends = more(this.ends, new Int32Array(size))
    this.depths = more(this.depths, new Int32Array(size))
  }
}

/** A run of word characters from `lastIndex` (sticky: scanned natively, not one test per character). */
const WORD_RUN = /[A-Za-z0-9_$\u0080-\uffff]+/y

/** Whether the character code `c` is a word character (`A-Z a-z 0-9 _ $` or beyond ASCII). */
function isWordCode(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57) || c === 95 || c === 36 || c >= 0x80
}

/** After these a `/` starts a regular expression, not a division. */
const REGEX_AFTER_PUNCT = new Set(['(', ',', '=', ':', '[', '!', '&', '|', '?', '{', '}', ';', '+', '-', '*', '%', '<', '>', '~', '^'])
const REGEX_AFTER_WORD = new Set([
  'return',
  'typeof',
  'instanceof',
  'in',
  'of',
  'new',
  'delete',
  'void',
  'throw',
  'case',
  'do',
  'else',
  'yield',
  'await',
])

/** Tokens of `source` (strings and templates whole, comments skipped); good enough to find imports. */
function tokenize(source: string): Tokens {
  const tokens = new Tokens(source)
  let depth = 0
  let i = 0
  const n = source.length
  while (i < n) {
    const c = source[i]
    if (c === ' ' || c === '\t' || c === '\n' || c === '\r' || c === '\ufeff') {
      i++
    } else if (c === '/' && source[i + 1] === '/') {
      const nl = source.indexOf('\n', i)
      i = nl < 0 ? n : nl
    } else if (c === '/' && source[i + 1] === '*') {
      const close = source.indexOf('*/', i + 2)
      i = close < 0 ? n : close + 2
    } else if (c === '"' || c === "'") {
      const start = i++
      while (i < n && source[i] !== c && source[i] !== '\n') i += source[i] === '\\' ? 2 : 1
      i++
      tokens.push(STRING, start, Math.min(i, n), depth)
    } else if (c === '`') {
      // A template: skipped whole, `${…}` included (nested braces and strings counted roughly).
      const start = i++
      let inner = 0
      while (i < n) {
        if (source[i] === '\\') i += 2
        else if (inner === 0 && source[i] === '`') break
        else if (source[i] === '$' && source[i + 1] === '{') {
          inner++
          i += 2
        } else {
          if (inner > 0 && source[i] === '}') inner--
          i++
        }
      }
      i++
      tokens.push(TEMPLATE, start, Math.min(i, n), depth)
    } else if (c === '/' && isRegexStart(tokens)) {
      const start = i++
      let inClass = false
      while (i < n && source[i] !== '\n') {
        if (source[i] === '\\') i++
        else if (source[i] === '[') inClass = true
        else if (source[i] === ']') inClass = false
        else if (source[i] === '/' && !inClass) break
        i++
      }
      i++
      while (i < n && isWordCode(source.charCodeAt(i))) i++
      tokens.push(REGEX, start, Math.min(i, n), depth)
    } else if (isWordCode(source.charCodeAt(i))) {
      const start = i
      WORD_RUN.lastIndex = i
      WORD_RUN.test(source)
      i = WORD_RUN.lastIndex
      tokens.push(WORD, start, i, depth)
    } else {
      if (c === '}' || c === ')' || c === ']') depth = Math.max(0, depth - 1)
      tokens.push(PUNCT, i, i + 1, depth)
      if (c === '{' || c === '(' || c === '[') depth++
      i++
    }
  }
  return tokens
}

/** Whether a `/` after the last token so far starts a regular expression. */
function isRegexStart(tokens: Tokens): boolean {
  const k = tokens.length - 1
  if (k < 0) return true
  const kind = tokens.kind(k)
  if (kind === PUNCT) return REGEX_AFTER_PUNCT.has(tokens.text(k))
  return kind === WORD && REGEX_AFTER_WORD.has(tokens.text(k))
}

/** The value of a string token (its escapes read the way JavaScript reads them, for the common ones). */
function stringValue(token: Token): string | undefined {
  const body = token.text.slice(1, -1)
  if (!body.includes('\\')) return body
  try {
    return JSON.parse(`"${body.replace(/"/g, '\\"').replace(/\\'/g, "'")}"`) as string
  } catch {
    return undefined
  }
}

/** Tokens an import or export clause may hold before its `from`. */
function inClause(t: Token): boolean {
  if (t.kind === 'word') return true
  if (t.kind === 'string') return true // `{ "a-b" as c }`
  return t.kind === 'punct' && (t.text === '{' || t.text === '}' || t.text === ',' || t.text === '*')
}

/** Every import and re-export of `source` whose specifier is a string literal (the first `max` of them). */
export function findImports(source: string, max = Infinity): FoundImport[] {
  const all = tokenize(source)
  const tokens = (k: number) => all.at(k)
  const found: FoundImport[] = []
  for (let i = 0; i < all.length && found.length < max; i++) {
    if (!all.isWord(i, 'import') && !all.isWord(i, 'export')) continue
    const t = tokens(i)!
    const before = tokens(i - 1)
    if (before?.kind === 'punct' && before.text === '.') continue // `x.import`
    const next = tokens(i + 1)
    if (!next) break
    if (t.text === 'import' && next.kind === 'punct' && next.text === '(') {
      const arg = tokens(i + 2)
      const close = tokens(i + 3)
      if (arg?.kind === 'string' && close?.kind === 'punct' && (close.text === ')' || close.text === ',')) {
        const specifier = stringValue(arg)
        if (specifier !== undefined) found.push({ specifier, start: t.start, end: close.end, hoistable: false, dynamic: true })
      }
      continue
    }
    if (next.kind === 'punct' && next.text === '.') continue // `import.meta`
    if (t.text === 'import' && next.kind === 'string') {
      const specifier = stringValue(next)
      if (specifier !== undefined) found.push({ specifier, start: t.start, end: declarationEnd(all, i + 1), hoistable: t.depth === 0 })
      continue
    }
    // A clause, then `from`, then the specifier: stop at anything a clause cannot hold.
    for (let j = i + 1; j < all.length && j < i + 400; j++) {
      const u = tokens(j)!
      const spec = tokens(j + 1)
      if (u.kind === 'word' && u.text === 'from' && spec?.kind === 'string' && j > i + 1) {
        const specifier = stringValue(spec)
        // `import type { X } from` and `import type X from` (but not `import type from`, a default named type).
        const typeOnly = next.text === 'type' && j > i + 2
        if (specifier !== undefined)
          found.push({
            specifier,
            start: t.start,
            end: declarationEnd(all, j + 1),
            hoistable: t.text === 'import' && t.depth === 0,
            ...(typeOnly ? { typeOnly } : {}),
          })
        i = j + 1
        break
      }
      if (!inClause(u)) break
      if (t.text === 'export' && j === i + 1 && !(u.kind === 'punct' && (u.text === '{' || u.text === '*')) && u.text !== 'type') break
    }
  }
  return found
}

/** Where a declaration whose specifier is token `k` ends: after `with { … }` and a `;`, if any. */
function declarationEnd(all: Tokens, k: number): number {
  const tokens = (at: number) => all.at(at)
  let end = tokens(k)!.end
  let j = k + 1
  if ((all.isWord(j, 'with') || all.isWord(j, 'assert')) && tokens(j + 1)?.text === '{') {
    const depth = tokens(j + 1)!.depth
    j += 2
    while (j < all.length && !(tokens(j)!.text === '}' && tokens(j)!.depth === depth)) j++
    end = tokens(j)?.end ?? end
    j++
  }
  const semicolon = tokens(j)
  if (semicolon?.kind === 'punct' && semicolon.text === ';') end = semicolon.end
  return end
}

/**
 * The program with its top-level `import` declarations moved out of the function body run_js
 * wraps it in: each declaration is blanked in place (newlines kept, so line N is still line N)
 * and returned to be put on the module's first line. Undefined for a program that imports nothing
 * (not even with `import()`); no declarations for one that only imports dynamically. A program
 * with more than `max` imports fails (ModuleGraph): the scan stops once it has seen one more.
 */
export function hoistImports(code: string, max = Infinity): { declarations: string[]; body: string; specifiers: string[] } | undefined {
  // No import (a keyword cannot be written with escapes) without the word: most programs skip the scan.
  if (!code.includes('import')) return undefined
  const all = findImports(code, max + 1)
  if (all.length === 0) return undefined
  const hoisted = all.filter(f => f.hoistable)
  let body = ''
  let at = 0
  const declarations: string[] = []
  for (const f of hoisted) {
    const text = code.slice(f.start, f.end)
    // Rebuilt from its tokens: one line, comments dropped, strings kept as written.
    const tokens = tokenize(text)
    const rebuilt = Array.from({ length: tokens.length }, (_, k) => tokens.text(k)).join(' ')
    declarations.push(rebuilt.endsWith(';') ? rebuilt : rebuilt + ';')
    body += code.slice(at, f.start) + text.replace(/[^\n]/g, ' ')
    at = f.end
  }
  body += code.slice(at)
  return { declarations, body, specifiers: all.map(f => f.specifier) }
}
