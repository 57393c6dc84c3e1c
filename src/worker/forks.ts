import {
  describeError,
  isSessionErrorCode,
  newSessionId,
  SessionError,
  type SessionErrorCode,
  type ForkPoint,
  type ForkSource,
  type SessionHost,
  type SessionRecord,
} from 'agent-vfs/session'
import type { EdgeEnv } from './options.js'
import type { CreateSessionResult } from './session-object.js'

/**
 * Forks on the Worker, where each session is its own Durable Object: the original's object pins
 * its workspace at the point (`host.remoteForks.offer`) and asks the fork's object, named by the
 * new id, to adopt it; the fork's object creates the session (the owner's quotas checked in D1),
 * then pulls the workspace in pages of bounded size and the events up to the point, by RPC to the
 * original's object. The fork's object stores its progress after each page and keeps an alarm set
 * until it is complete, so a copy cut by an eviction finishes where it stopped.
 */
export async function forkAcross(
  env: EdgeEnv,
  host: SessionHost,
  sessionId: string,
  at: ForkPoint,
  options: { title?: string },
): Promise<SessionRecord> {
  const forkId = newSessionId()
  const offer = await host.remoteForks.offer(sessionId, at, forkId)
  const result = await env.SESSIONS.getByName(forkId).adoptFork({ offer, id: forkId, ...(options.title !== undefined ? options : {}) })
  if ('record' in result) return result.record
  // Refused before anything was stored (quota): the pin goes. A fork stored and cut half-way keeps it for its alarm.
  if (!('kept' in result)) await host.remoteForks.release(sessionId, forkId).catch(() => undefined)
  throw relayed(result.error)
}

/** The original's side of a copy, seen from the fork's object: RPC to the original's object. */
export function forkSourceOf(env: EdgeEnv, from: string, forkId: string): ForkSource {
  const original = () => env.SESSIONS.getByName(from)
  return {
    page: async cursor => unwrap(await original().forkPage(from, forkId, cursor)),
    events: async (after, limit) => unwrap(await original().forkEvents(from, after, limit)),
    release: async () => unwrap(await original().forkRelease(from, forkId)),
  }
}

/** An RPC answer: the value, or the API's error (RPC keeps no error class). */
export type Answer<T> = { value: T } | { error: { status: number; code: string; message: string } }

/** Runs `work`, answering its value or its error as the API describes it. */
export async function answer<T>(work: () => Promise<T>): Promise<Answer<T>> {
  try {
    return { value: await work() }
  } catch (error) {
    const { status, code, message } = describeError(error)
    if (status === 500) console.error(error)
    return { error: { status, code, message } }
  }
}

function unwrap<T>(a: Answer<T>): T {
  if ('value' in a) return a.value
  throw relayed(a.error)
}

/** The error another object answered, as this one throws it (the same status, code and message). */
function relayed(error: { code: string; message: string }): Error {
  const code = isSessionErrorCode(error.code) ? error.code : WORKSPACE_CODES[error.code]
  return code ? new SessionError(code, error.message, { told: true }) : new Error(error.message)
}

/** A workspace's refusals, as the session codes of the same status. */
const WORKSPACE_CODES: Record<string, SessionErrorCode | undefined> = {
  ENOENT: 'not-found',
  EINVAL: 'invalid',
  EQUOTA: 'quota',
  ECONFLICT: 'conflict',
}

/** {@link CreateSessionResult} of an adoption. */
export function adopted(a: Answer<SessionRecord>): CreateSessionResult {
  return 'value' in a ? { record: a.value } : a
}
