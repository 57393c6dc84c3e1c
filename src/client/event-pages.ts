import { SessionApiError } from './errors.js'
import type { SessionEvent } from './events.js'
import type { SessionClient } from './client.js'

/** The API's largest page of `GET /sessions/{id}/events`. */
const PAGE = 1000

/**
 * A session's stored log after `after`, read a page at a time (`api.listEvents`) up to its current end:
 * for a view that wants the log up to now at once (then `observe({ after: lastSeq })` for the rest).
 * Every page must move past the one before: a server that sends the same page again is an error
 * (`bad-response`), not a loop.
 */
export async function* eventPages(
  client: Pick<SessionClient, 'api'>,
  sessionId: string,
  options: { after?: number; signal?: AbortSignal } = {},
): AsyncGenerator<SessionEvent[]> {
  let after = options.after ?? 0
  while (!options.signal?.aborted) {
    const { events } = await client.api.listEvents({ params: { id: sessionId }, query: { after, limit: PAGE } })
    if (events.some(e => !(e.seq > after)))
      throw new SessionApiError(0, 'bad-response', `the events page after ${after} holds an event at or before it`)
    if (events.length > 0) yield events as unknown as SessionEvent[]
    if (events.length < PAGE) return
    after = events.at(-1)!.seq
  }
}
