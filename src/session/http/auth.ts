import type { Context, MiddlewareHandler } from 'hono'
import { sign, verify } from 'hono/jwt'
import { errorResponse } from './errors.js'
import type { OpenedSession } from '../session-ref.js'

/** How requests are authenticated: bearer JWTs signed with HS256; `sub` is the owner. */
export interface SessionAuth {
  /** The HS256 secret (at least 32 characters). */
  secret: string
}

/**
 * What a request of the session app carries: the caller (`owner`, set by {@link bearerAuth}) and, on
 * `/sessions/:id/*`, its session opened once, on first use ({@link openSession}).
 */
export type AuthEnv = { Variables: { owner: string; session?: () => Promise<OpenedSession> } }

/** Checks `Authorization: Bearer <jwt>`: signature, `exp` and `nbf`, and a string `sub`. Anything else is 401. */
export function bearerAuth(auth: SessionAuth): MiddlewareHandler<AuthEnv> {
  if (typeof auth?.secret !== 'string' || auth.secret.length < 32)
    throw new TypeError('auth.secret must be a string of at least 32 characters')
  return async (c, next) => {
    const upgrade = c.req.header('upgrade')?.toLowerCase() === 'websocket'
    const header = c.req.header('authorization') ?? (upgrade ? bearerFromProtocols(c.req.header('sec-websocket-protocol')) : '')
    const m = /^Bearer ([A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+)$/.exec(header)
    if (!m) return unauthorized(c, malformed(header), /^Bearer /i.test(header))
    let sub: unknown
    try {
      sub = (await verify(m[1], auth.secret, 'HS256')).sub
    } catch {
      return unauthorized(c, 'the token is invalid or expired', true)
    }
    if (typeof sub !== 'string' || sub === '' || sub.length > 256) return unauthorized(c, 'the token has no usable sub', true)
    c.set('owner', sub)
    await next()
  }
}

/**
 * A 401 with the bearer challenge RFC 6750 (and the MCP authorization spec, for `/sessions/{id}/mcp`)
 * asks for: `Bearer realm="agent-vfs"`, plus `error="invalid_token"` when a bearer token was sent
 * and refused. No `resource_metadata`: the tokens come from whoever runs the host, there is no
 * authorization server, so a client must not start an OAuth flow; the message says what to send.
 */
function unauthorized(c: Context, message: string, tokenRefused: boolean): Response {
  const error = tokenRefused ? `, error="invalid_token", error_description="${message.replace(/["\\]/g, '')}"` : ''
  c.header('WWW-Authenticate', `Bearer realm="agent-vfs"${error}`)
  return errorResponse(c, 401, 'unauthorized', message)
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
