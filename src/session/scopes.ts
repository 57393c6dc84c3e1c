/**
 * Where a session host keeps things in the store. Every scope is small and has one job, so a
 * commit to one never rewrites another and a load reads only what it needs.
 */

/** The session record, in the meta scope: a meta scope without it is no session. */
export const SESSION_PATH = '/session.json'

/** Events per log segment: a segment is one scope, loaded whole when read. */
export const SEGMENT_EVENTS = 500

export const scopeNames = {
  /** session.json, lease.json, abort.json, log.json. */
  meta: (id: string) => `session/${id}`,
  /** One file per message. */
  messages: (id: string) => `messages/${id}`,
  /** The session's workspace (files, /state of the agent runtime). */
  workspace: (id: string) => `workspace/${id}`,
  /** Event segment `n` holds sequences `n*SEGMENT_EVENTS + 1 … (n+1)*SEGMENT_EVENTS`. */
  events: (id: string, segment: number) => `events/${id}/${segment}`,
  /** One entry per session of an owner: the list, the quota. */
  owner: (owner: string) => `owner/${encodeURIComponent(owner)}`,
  /** One entry per session with an execution running somewhere: what recovery looks at. */
  running: 'running',
} as const

/** Segment holding a sequence number (>= 1). */
export const segmentOf = (seq: number) => Math.floor((seq - 1) / SEGMENT_EVENTS)

/** Session ids: `s` + 32 hex digits. Anything else is refused before it reaches the store. */
export const SESSION_ID = /^s[0-9a-f]{32}$/

/** A new random session id (`s` + 32 hex digits). */
export function newSessionId(): string {
  return 's' + crypto.randomUUID().replaceAll('-', '')
}
