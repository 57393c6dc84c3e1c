import type { RunJsFetchRule } from '../types.js'

/**
 * The allow-list of `external_fetch`, read once when the runner is made. A rule names an exact origin
 * (scheme, host, port) and a path: a URL matches when its origin is the rule's and its path is the
 * rule's path or lies under it on a segment boundary (`/v1` covers `/v1` and `/v1/x`, never `/v1x`).
 * A string prefix would send a rule's secret to `https://api.example.com.evil.net/` for a rule
 * written `https://api.example.com`; so a prefix that is not written exactly as the URL parser
 * writes an origin and a path is refused when the rule is made, with the spelling to use instead.
 */

const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'])

/** A rule as matched: its origin and path apart. */
export interface FetchRule {
  origin: string
  path: string
  methods: readonly string[]
  headers: Readonly<Record<string, string>>
}

/** The rules of `allow`, checked (a TypeError from createRunJs says which rule is wrong and what to write). */
export function readRules(allow: readonly RunJsFetchRule[]): FetchRule[] {
  return allow.map((rule, i) => readRule(rule, `fetch.allow[${i}]`))
}

function readRule(rule: RunJsFetchRule, where: string): FetchRule {
  if (rule === null || typeof rule !== 'object') throw new TypeError(`run_js: ${where} must be { prefix, methods?, headers? }`)
  const { prefix, methods = ['GET', 'HEAD'], headers = {} } = rule
  const url = readPrefix(prefix, `${where}.prefix`)
  if (!Array.isArray(methods) || methods.some(m => typeof m !== 'string' || !METHODS.has(m)))
    throw new TypeError(`run_js: ${where}.methods must list methods in capitals among ${[...METHODS].join(', ')}`)
  if (headers === null || typeof headers !== 'object' || Object.values(headers).some(v => typeof v !== 'string'))
    throw new TypeError(`run_js: ${where}.headers must be an object of strings`)
  return { origin: url.origin, path: url.pathname, methods, headers }
}

function readPrefix(prefix: unknown, where: string): URL {
  const refuse = (why: string) => new TypeError(`run_js: ${where} ${JSON.stringify(prefix)} ${why}`)
  if (typeof prefix !== 'string') throw refuse('must be a string such as "https://api.example.com/v1/"')
  // Whitespace, control characters and backslashes are dropped or rewritten by the URL parser.
  if (/[\s\\\u0000-\u001f\u007f]/.test(prefix)) throw refuse('holds whitespace, a control character or a backslash; write the URL plainly')
  const parts = /^([a-z][a-z0-9+.-]*:)\/\/([^/?#]*)(.*)$/i.exec(prefix)
  if (!parts) throw refuse('is not an origin and a path: write one such as "https://api.example.com/v1/"')
  const [, scheme, authority, rest] = parts
  if (scheme.toLowerCase() !== 'https:' && scheme.toLowerCase() !== 'http:') throw refuse('is not an http or https URL')
  if (authority.includes('@')) throw refuse('holds credentials: the host adds credentials as headers (headers: { authorization })')
  let url: URL
  try {
    url = new URL(prefix)
  } catch {
    throw refuse('is not a URL')
  }
  if (rest.includes('?') || rest.includes('#'))
    throw refuse(`holds a query or a fragment: a rule matches an origin and a path; write "${url.origin}${url.pathname}"`)
  if (!rest.startsWith('/'))
    throw refuse(
      `names no path, so it would match any host or port that starts the same way: write "${url.origin}/" for the whole origin, or "${url.origin}/v1/" for one path`,
    )
  if (url.href !== prefix)
    throw refuse(`is read by the URL parser as "${url.href}" (case, default port, dots or escapes): write "${url.href}"`)
  return url
}

/** The first rule for `url` and `method`: the same origin, and the rule's path or a path under it. */
export function ruleFor(rules: readonly FetchRule[], url: URL, method: string): FetchRule | undefined {
  return rules.find(r => r.origin === url.origin && underPath(url.pathname, r.path) && r.methods.includes(method))
}

function underPath(path: string, rulePath: string): boolean {
  if (path === rulePath) return true
  return path.startsWith(rulePath.endsWith('/') ? rulePath : rulePath + '/')
}

/** The rule an approval (`ask`) adds: the whole origin, that method, no headers. */
export function approvedRule(url: URL, method: string): FetchRule {
  return { origin: url.origin, path: '/', methods: [method], headers: {} }
}
