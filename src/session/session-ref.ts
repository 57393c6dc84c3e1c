import type { SessionRecord } from './types.js'

/**
 * A session a host opened for one request: the owner checked, its meta read, a half-made fork
 * finished. The host's methods take it in place of the id (`host.send(session, …)`) and use what it
 * read instead of reading it again; it is spent by the first method that uses it (a later one reads
 * afresh, so a value kept around never stands for a newer state). Made by `host.open`.
 */
export interface OpenedSession {
  readonly id: string
  readonly record: SessionRecord
}

/** What the host's session methods take: an id, or a session the host opened for this request. */
export type SessionRef = string | OpenedSession

/** The id a {@link SessionRef} names (a hostile value passes through, to be refused where ids are checked). */
export const idOf = (ref: SessionRef): string => (typeof ref === 'object' && ref !== null ? ref.id : ref)
