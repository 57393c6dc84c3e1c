import type { Context } from 'hono'
import { HTTPException } from 'hono/http-exception'
import type { ContentfulStatusCode } from 'hono/utils/http-status'
import { VfsError } from 'agent-vfs'
import { SessionError, type SessionErrorCode } from '../errors.js'

const sessionStatus: Record<SessionErrorCode, ContentfulStatusCode> = {
  'not-found': 404,
  closed: 409,
  invalid: 400,
  conflict: 409,
  quota: 413,
  'not-running': 409,
  'not-interrupted': 409,
  'not-waiting': 409,
  busy: 409,
  'unknown-profile': 400,
  'too-many-running': 429,
}
const vfsStatus: Partial<Record<VfsError['code'], ContentfulStatusCode>> = {
  ENOENT: 404,
  EINVAL: 400,
  EISDIR: 400,
  ENOTDIR: 400,
  EACCES: 403,
  EQUOTA: 413,
  ECONFLICT: 409,
}

/** The one error shape of the API: `{ error: { code, message } }`. */
export function errorResponse<S extends ContentfulStatusCode>(c: Context, status: S, code: string, message: string) {
  return c.json({ error: { code, message } }, status)
}

/** What the API answers for anything a handler throws: status, code, message; internals are not leaked. */
export function describeError(error: unknown): { status: ContentfulStatusCode; code: string; message: string } {
  if (error instanceof SessionError) return { status: sessionStatus[error.code], code: error.code, message: error.message }
  if (error instanceof VfsError) return { status: vfsStatus[error.code] ?? 500, code: error.code, message: error.message }
  if (error instanceof HTTPException) {
    const status = error.status as ContentfulStatusCode
    return {
      status,
      code: status === 401 ? 'unauthorized' : status === 413 ? 'too-large' : 'bad-request',
      message: error.message || 'bad request',
    }
  }
  return { status: 500, code: 'internal', message: 'the server failed; the request may be retried' }
}

/** Maps anything thrown by a handler to a JSON error with the right status (see {@link describeError}). */
export function toErrorResponse(error: unknown, c: Context): Response {
  const { status, code, message } = describeError(error)
  return errorResponse(c, status, code, message)
}
