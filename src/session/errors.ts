/** Why a session host call was refused. */
export type SessionErrorCode =
  | 'not-found'
  | 'closed'
  | 'invalid'
  | 'conflict'
  | 'quota'
  | 'not-running'
  | 'not-interrupted'
  | 'not-waiting'
  | 'busy'
  | 'unknown-profile'
  | 'too-many-running'

const hints: Record<SessionErrorCode, string> = {
  'not-found': 'check the id; list your sessions to find it',
  closed: 'reopen the session first',
  invalid: 'fix the request as the message says',
  conflict: 'another writer changed it at the same time; retry',
  quota: 'delete sessions or files, or ask for a larger quota',
  'not-running': 'there is no running execution to act on',
  'not-interrupted': 'only an execution stopped by an abort can be resumed; send a message to start a new one',
  'not-waiting': 'nothing is pending with that id; list the pending actions',
  busy: 'wait for the running execution, or abort it',
  'unknown-profile': 'use one of the profiles the host was created with',
  'too-many-running': 'wait until one of your running executions ends (or abort one), then send again',
}

/** A typed refusal of the session host; `code` decides the HTTP status. */
export class SessionError extends Error {
  override readonly name = 'SessionError'
  constructor(
    readonly code: SessionErrorCode,
    detail: string,
    /** `told`: `detail` is a whole message already (one relayed from another host, hint included). */
    options?: { cause?: unknown; told?: boolean },
  ) {
    super(options?.told ? detail : `${detail}: ${hints[code]}`, options?.cause === undefined ? undefined : { cause: options.cause })
  }
}

/** True when `code` is one of {@link SessionErrorCode}. */
export function isSessionErrorCode(code: string): code is SessionErrorCode {
  return Object.prototype.hasOwnProperty.call(hints, code)
}

/** The "not found" error of a session id (also another owner's session: it is not told apart from a missing one). */
export function sessionNotFound(sessionId: string): SessionError {
  return new SessionError('not-found', `There is no session ${JSON.stringify(String(sessionId).slice(0, 64))}`)
}
