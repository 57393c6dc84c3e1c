import type { Context } from 'hono'
import { HTTPException } from 'hono/http-exception'
import type { ContentfulStatusCode } from 'hono/utils/http-status'
import { VfsError } from 'agent-vfs'
import { SessionError, type SessionErrorCode } from '../errors.js'

const sessionStatus: Record<SessionErrorCode, ContentfulStatusCode> = {
  'not-found': 404, closed: 409, invalid: 400, conflict: 409, quota: 413, 'not-running': 409, 'not-waiting': 409, busy: 409, 'unknown-profile': 400,
}
const vfsStatus: Partial<Record<VfsError['code'], ContentfulStatusCode>> = { ENOENT: 404, EINVAL: 400, EISDIR: 400, ENOTDIR: 400, EACCES: 403, EQUOTA: 413, ECONFLICT: 409 }

/** The one error shape of the API: `{ error: { code, message } }`. */
export function errorResponse(c: Context, status: ContentfulStatusCode, code: string, message: string): Response {
  return c.json({ error: { code, message } }, status)
}

/** Maps anything thrown by a handler to a JSON error with the right status; internals are not leaked. */
export function toErrorResponse(error: unknown, c: Context): Response {
  if (error instanceof SessionError) return errorResponse(c, sessionStatus[error.code], error.code, error.message)
  if (error instanceof VfsError) return errorResponse(c, vfsStatus[error.code] ?? 500, error.code, error.message)
  if (error instanceof HTTPException) {
    const status = error.status as ContentfulStatusCode
    return errorResponse(c, status, status === 401 ? 'unauthorized' : status === 413 ? 'too-large' : 'bad-request', error.message || 'bad request')
  }
  return errorResponse(c, 500, 'internal', 'the server failed; the request may be retried')
}
