import type { LiveDelta, SessionEvent } from 'agent-vfs/session'

export type { LiveDelta, SessionEvent }

/**
 * What {@link SessionClient.observe} yields: the session's stored events (each with its `seq`), and with
 * `live: true` also the live text of a running execution (`type: 'delta'`, no `seq`: text =
 * text.slice(0, at) + delta; the stored `text` event with the same `streamId` replaces it).
 */
export type ObservedEvent = SessionEvent | LiveDelta

/** A session event of one type, e.g. `EventOf<'files-changed'>`. */
export type EventOf<T extends SessionEvent['type']> = Extract<SessionEvent, { type: T }>
