import type { MiddlewareHandler } from 'hono'
import { sign, verify } from 'hono/jwt'
import { errorResponse } from './errors.js'

/** How requests are authenticated: bearer JWTs signed with HS256; `sub` is the owner. */
export interface SessionAuth {
  /** The HS256 secret (at least 32 characters). */
  secret: string
}

export type AuthEnv = { Variables: { owner: string } }

/** Checks `Authorization: Bearer <jwt>`: signature, `exp` and `nbf`, and a string `sub`. Anything else is 401. */
export function bearerAuth(auth: SessionAuth): MiddlewareHandler<AuthEnv> {
  if (typeof auth?.secret !== 'string' || auth.secret.length < 32)
    throw new TypeError('auth.secret must be a string of at least 32 characters')
  return async (c, next) => {
    const upgrade = c.req.header('upgrade')?.toLowerCase() === 'websocket'
    const header = c.req.header('authorization') ?? (upgrade ? bearerFromProtocols(c.req.header('sec-websocket-protocol')) : '')
    const m = /^Bearer ([A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+)$/.exec(header)
    if (!m) return errorResponse(c, 401, 'unauthorized', malformed(header))
    let sub: unknown
    try {
      sub = (await verify(m[1], auth.secret, 'HS256')).sub
    } catch {
      return errorResponse(c, 401, 'unauthorized', 'the token is invalid or expired')
    }
    if (typeof sub !== 'string' || sub === '' || sub.length > 256)
      return errorResponse(c, 401, 'unauthorized', 'the token has no usable sub')
    c.set('owner', sub)
    await next()
  }
}

/** What is wrong with an Authorization header that is not `Bearer <jwt>`. */
function malformed(header: string): string {
  if (header === '') return 'no token: send Authorization: Bearer <token>'
  if (!/^Bearer /i.test(header)) return 'the Authorization header is not a bearer token: send Authorization: Bearer <token>'
  return 'the bearer token is malformed: a token is a JWT, three base64url parts separated by dots (header.payload.signature)'
}

/**
 * A browser cannot set headers on a WebSocket, so it may offer the token as a subprotocol,
 * `new WebSocket(url, ['agent-vfs', 'bearer.' + token])`; only for an upgrade request.
 */
function bearerFromProtocols(protocols: string | undefined): string {
  const token = protocols
    ?.split(',')
    .map(p => p.trim())
    .find(p => p.startsWith('bearer.'))
  return token ? `Bearer ${token.slice('bearer.'.length)}` : ''
}

/** Signs a token for `owner`, valid for `seconds` (default one day). */
export function mintToken(secret: string, owner: string, seconds = 86_400): Promise<string> {
  const now = Math.floor(Date.now() / 1000)
  return sign({ sub: owner, iat: now, exp: now + seconds }, secret, 'HS256')
}
