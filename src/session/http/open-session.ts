import type { MiddlewareHandler } from 'hono'
import type { SessionHost } from '../host-api.js'
import type { OpenedSession } from '../session-ref.js'
import type { AuthEnv } from './auth.js'

/**
 * Puts the route's session on the request: opened for the caller (another owner's session is not
 * found) on first use, once, so a handler validates its input before anything is read.
 */
export function openSession(host: Pick<SessionHost, 'open'>): MiddlewareHandler<AuthEnv> {
  return async (c, next) => {
    let opened: Promise<OpenedSession> | undefined
    c.set('session', () => (opened ??= host.open(c.req.param('id') ?? '', c.get('owner'))))
    await next()
  }
}
