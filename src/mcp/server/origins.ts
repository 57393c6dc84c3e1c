/**
 * Which browser pages may call a session's MCP endpoint. The streamable-HTTP transport asks servers
 * to check `Origin`: a page on a foreign site (or one that rebinds its DNS name to the host's
 * address) must not reach the endpoint from a user's browser. Clients that are not browsers
 * (Claude Code, Cursor, the SDK's client in Node) send no `Origin` and always pass; a browser page
 * passes only when its origin is listed. The host's own origin is not implied: under DNS rebinding
 * the `Host` header is the attacker's name too, so nothing the request says can vouch for it.
 */

/** The environment variable `npm run serve` and the Worker read: origins separated by commas. */
const MCP_ORIGINS_VARIABLE = 'AGENT_VFS_MCP_ORIGINS'

/** Listed origins at most (each is compared per request). */
const MAX_ORIGINS = 100

/**
 * The allowed origins as the checks compare them: each `scheme://host[:port]` exactly as a browser
 * sends it (`https://app.example.com`), or `*` for any page. Anything else (a path, a bare host)
 * is refused with the fix.
 */
export function allowedOriginSet(origins: readonly string[] | undefined): ReadonlySet<string> {
  if (origins === undefined) return new Set()
  if (!Array.isArray(origins)) throw new TypeError('allowedOrigins is a list of origins, such as ["https://app.example.com"]')
  if (origins.length > MAX_ORIGINS) throw new TypeError(`allowedOrigins lists at most ${MAX_ORIGINS} origins`)
  const set = new Set<string>()
  for (const entry of origins) {
    if (entry === '*') {
      set.add('*')
      continue
    }
    let url: URL | undefined
    try {
      url = typeof entry === 'string' ? new URL(entry) : undefined
    } catch {
      url = undefined
    }
    // `new URL('app.example.com:443')` parses with the scheme "app.example.com:": only http(s) is an origin here.
    const origin = url && (url.protocol === 'http:' || url.protocol === 'https:') ? url.origin : undefined
    if (!origin || entry.replace(/\/$/, '').toLowerCase() !== origin)
      throw new TypeError(
        `an allowed MCP origin is scheme://host[:port] with no path, such as "https://app.example.com" (or "*" for any page); got ${JSON.stringify(entry)}` +
          (origin ? `: did you mean "${origin}"?` : ''),
      )
    set.add(origin)
  }
  return set
}

/** The 403 for a request from a browser page whose origin is not allowed; undefined when it may go on. */
export function originRefusal(request: Request, allowed: ReadonlySet<string>): Response | undefined {
  const origin = request.headers.get('origin')
  if (origin === null || allowed.has('*') || allowed.has(origin)) return undefined
  const message =
    `a browser page of ${JSON.stringify(origin.slice(0, 200))} may not call this MCP endpoint (foreign origins are refused, against DNS rebinding). ` +
    `To allow a page, list its origin: allowedOrigins in mountSessionMcp / sessionMcp, or ${MCP_ORIGINS_VARIABLE}=https://app.example.com ` +
    '(comma-separated) for npm run serve and the Worker. Clients that are not browsers send no Origin and are not affected.'
  return Response.json({ error: { code: 'forbidden-origin', message } }, { status: 403 })
}
