import type { RunJsFetch, RunJsToolFunction } from '../types.js'
import { privateAddress, privateHost } from './fetch-address.js'
import { readBody, refused, ResponseBudget } from './fetch-body.js'
import { approvedRule, readRules, ruleFor, type FetchRule } from './fetch-rules.js'

/**
 * The opt-in `external_fetch` of a program, executed by the host (RunJsFetch in types.ts). Every
 * request and every redirect hop is checked against the allow-list (exact origin, then path:
 * fetch-rules.ts) and the address rule (public unicast only: fetch-address.ts); secrets are headers
 * the host adds for matching URLs and are redacted from everything the guest gets back (status text,
 * headers, body, URL, errors); response bytes come from one budget per run, reserved before they are
 * read (fetch-body.ts); the run's signal (its deadline) bounds the time.
 */

const DEFAULTS = { maxRequests: 50, maxRequestBytes: 1024 * 1024, maxResponseBytes: 4 * 1024 * 1024, maxRedirects: 5 }
const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'])

/** What a program passes: a URL, or `{ url, method, headers, body }` (body a string). */
interface FetchInput {
  url: string
  method: string
  headers: Record<string, string>
  body?: string
}

/** What a program gets: plain data, secrets redacted. */
export interface FetchAnswer {
  status: number
  statusText: string
  url: string
  headers: Record<string, string>
  body: string
}

/** Per-run counters, keyed by the run's signal (one per run; the tool itself is shared by runs). */
const usage = new WeakMap<AbortSignal, { requests: number; budget: ResponseBudget }>()

/** The tool behind `createRunJs({ fetch })`: the guest calls it as `external_fetch(urlOrRequest)`. */
export function fetchTool(options: RunJsFetch): RunJsToolFunction {
  const limits = { ...DEFAULTS, ...options.limits }
  const rules = readRules(options.allow)
  const doFetch = options.fetch ?? globalThis.fetch.bind(globalThis)
  const approved = new Set<string>()
  return async (raw, { signal }) => {
    const input = readInput(raw)
    let run = usage.get(signal)
    if (!run) usage.set(signal, (run = { requests: 0, budget: new ResponseBudget(limits.maxResponseBytes) }))
    const secrets = new Set<string>()
    let url = input.url
    let method = input.method
    let body = input.body
    if (body !== undefined && byteLength(body) > limits.maxRequestBytes)
      throw refused(`the request body is ${byteLength(body)} bytes, at most ${limits.maxRequestBytes} (fetch.limits.maxRequestBytes)`)
    for (let hop = 0; ; hop++) {
      if (++run.requests > limits.maxRequests)
        throw refused(`a run may make at most ${limits.maxRequests} requests (fetch.limits.maxRequests)`)
      let target: { url: URL; rule: FetchRule }
      try {
        target = await checkTarget(url, method, options, rules, approved, secrets)
      } catch (error) {
        // A redirect's URL may carry a secret the server echoed into it. (An `ask` that parks the
        // program throws its own error, which goes on as it is.)
        if (error instanceof Error && error.name === 'FetchRefused') error.message = redact(error.message, secrets)
        throw error
      }
      const headers = new Headers(input.headers)
      for (const [name, value] of Object.entries(target.rule.headers)) {
        headers.set(name, value) // the host's header wins over the guest's
        secrets.add(value)
      }
      let response: Response
      try {
        response = await doFetch(target.url.href, { method, headers, body, redirect: 'manual', signal })
      } catch (error) {
        if (signal.aborted) throw refused('the run ended before the response came')
        throw refused(redact(`fetch ${target.url.origin} failed: ${(error as Error)?.message ?? String(error)}`, secrets))
      }
      const location = response.headers.get('location')
      if (response.type === 'opaqueredirect') throw refused(`${target.url.href} redirects, and this host cannot inspect redirects`)
      if (response.status >= 300 && response.status < 400 && location !== null) {
        await response.body?.cancel()
        if (hop + 1 > limits.maxRedirects) throw refused(`more than ${limits.maxRedirects} redirects (fetch.limits.maxRedirects)`)
        url = new URL(location, target.url).href
        // Like browsers: 303 (and 301/302 after POST) become GET without a body.
        if (response.status === 303 || ((response.status === 301 || response.status === 302) && method === 'POST')) {
          method = 'GET'
          body = undefined
        }
        continue
      }
      const text = await readBody(response, run.budget, signal)
      const shown: Record<string, string> = {}
      response.headers.forEach((value, name) => (shown[name] = redact(value, secrets)))
      return {
        status: response.status,
        statusText: redact(response.statusText, secrets),
        url: redact(target.url.href, secrets),
        headers: shown,
        body: redact(text, secrets),
      }
    }
  }
}

function readInput(raw: unknown): FetchInput {
  const given = typeof raw === 'string' ? { url: raw } : raw
  if (given === null || typeof given !== 'object' || typeof (given as { url?: unknown }).url !== 'string')
    throw new TypeError("external_fetch takes a URL or { url, method?, headers?, body? }, e.g. external_fetch('https://api.example.com/x')")
  const { url, method = 'GET', headers = {}, body } = given as { url: string; method?: unknown; headers?: unknown; body?: unknown }
  if (typeof method !== 'string' || !METHODS.has(method.toUpperCase()))
    throw new TypeError(`external_fetch: unknown method ${JSON.stringify(method)}`)
  if (headers === null || typeof headers !== 'object' || Object.values(headers).some(v => typeof v !== 'string'))
    throw new TypeError('external_fetch: headers must be an object of strings')
  if (body !== undefined && typeof body !== 'string') throw new TypeError('external_fetch: body must be a string (JSON.stringify objects)')
  return { url, method: method.toUpperCase(), headers: headers as Record<string, string>, ...(body === undefined ? {} : { body }) }
}

/** The allow-list rule for a URL and method, after the scheme, private-address and approval checks. */
async function checkTarget(
  href: string,
  method: string,
  options: RunJsFetch,
  rules: readonly FetchRule[],
  approved: Set<string>,
  secrets: ReadonlySet<string>,
): Promise<{ url: URL; rule: FetchRule }> {
  let url: URL
  try {
    url = new URL(href)
  } catch {
    throw refused(`not a URL: ${JSON.stringify(href)}`)
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw refused(`${url.protocol} URLs cannot be fetched (http and https only)`)
  if (url.username || url.password) throw refused('URLs with credentials cannot be fetched (the host adds credentials)')
  let rule = ruleFor(rules, url, method)
  if (!rule) {
    const key = `${method} ${url.origin}`
    const decision =
      options.ask && !approved.has(key) ? await options.ask({ url: redact(url.href, secrets), origin: url.origin, method }) : undefined
    if (decision !== 'allow' && !approved.has(key))
      throw refused(`${method} ${url.origin}${url.pathname} is not on this program's allow-list`)
    approved.add(key)
    rule = approvedRule(url, method)
  }
  const allowPrivate = options.allowPrivate === true || (Array.isArray(options.allowPrivate) && options.allowPrivate.includes(url.host))
  if (!allowPrivate) {
    const why = await privateHost(url.hostname)
    if (why) throw refused(`${url.host} is ${why}, which programs may not reach`)
    for (const address of options.resolve ? await options.resolve(url.hostname) : []) {
      const behind = await privateAddress(address)
      if (behind) throw refused(`${url.host} resolves to ${behind}, which programs may not reach`)
    }
  }
  return { url, rule }
}

function redact(text: string, secrets: ReadonlySet<string>): string {
  let out = text
  for (const secret of secrets) {
    // The whole value, and its credential part alone (`Bearer <token>` echoed as `<token>`).
    const token = secret.split(/\s+/).pop() ?? ''
    for (const s of [secret, token]) if (s.length >= 4) out = out.split(s).join('[secret]')
  }
  return out
}

function byteLength(text: string): number {
  return new TextEncoder().encode(text).byteLength
}
