import { createParser } from 'eventsource-parser'
import { ApiError, type SessionClient } from './client.js'
import type { LiveDelta, SessionEvent } from './types.js'

/** Where a feed stands, for the UI's connection indicator. */
export type FeedState =
  | { kind: 'connecting' }
  | { kind: 'live' }
  | { kind: 'reconnecting'; attempt: number; reason: string }
  | { kind: 'stopped'; error?: ApiError }

/** Options of {@link followEvents}. */
export interface FeedOptions {
  /** Receives new events in order, each seq once, in batches (one per network chunk). */
  onEvents(events: SessionEvent[]): void
  onState?(state: FeedState): void
  /** Receives the live text of a running execution as it is generated (not stored; a reconnect sends the text so far again). */
  onDelta?(delta: LiveDelta): void
  signal: AbortSignal
  /** Where the last seen seq is remembered across reloads. Default sessionStorage. */
  storage?: Pick<Storage, 'getItem' | 'setItem'>
  /** Longest wait between reconnects. Default 5 s. */
  maxBackoffMs?: number
}

const seqKey = (sessionId: string) => `agent-vfs-demo.seq.${sessionId}`

/** The last seq this tab saw of a session (0 if none), kept in sessionStorage so a reload resumes there. */
export function lastSeenSeq(sessionId: string, storage: Pick<Storage, 'getItem'> = sessionStorage): number {
  const n = Number(storage.getItem(seqKey(sessionId)) ?? 0)
  return Number.isSafeInteger(n) && n > 0 ? n : 0
}

/**
 * Follows a session's event log: first the events up to the seq this tab last saw (REST pages, so a
 * reload can redraw the timeline), then the SSE stream resumed from that seq with Last-Event-ID,
 * reconnecting with backoff whenever it ends. Every event is delivered once, in order: anything at or
 * below the last delivered seq is dropped. Resolves when `signal` aborts or the session is gone.
 */
export async function followEvents(client: SessionClient, sessionId: string, options: FeedOptions): Promise<void> {
  const storage = options.storage ?? sessionStorage
  const { signal } = options
  const remembered = lastSeenSeq(sessionId, storage)
  let last = 0
  const deliver = (batch: SessionEvent[]) => {
    const fresh: SessionEvent[] = []
    for (const e of batch) {
      if (e.seq <= last) continue
      fresh.push(e)
      last = e.seq
    }
    if (fresh.length === 0 || signal.aborted) return
    storage.setItem(seqKey(sessionId), String(last))
    options.onEvents(fresh)
  }
  const state = (s: FeedState) => !signal.aborted && options.onState?.(s)
  state({ kind: 'connecting' })
  try {
    // The part of the log this tab has already seen: redraw it from the stored pages. A page asks for
    // no more than that part: what the run appended since comes once, from the stream (a page that
    // went beyond would carry those events twice, issue 15).
    while (last < remembered) {
      const page = await client.listEvents(sessionId, last, Math.min(1000, remembered - last))
      if (page.length === 0) break
      deliver(page.filter(e => e.seq <= remembered))
      if (page[page.length - 1]!.seq >= remembered) break
    }
    let attempt = 0
    while (!signal.aborted) {
      try {
        const res = await client.openStream(sessionId, last, signal)
        state({ kind: 'live' })
        attempt = 0
        await readStream(res, deliver, signal, options.onDelta)
        if (signal.aborted) break
        state({ kind: 'reconnecting', attempt: 1, reason: 'the stream ended' })
      } catch (error) {
        if (signal.aborted) break
        if (error instanceof ApiError && (error.status === 401 || error.status === 404 || error.status === 400)) {
          state({ kind: 'stopped', error })
          return
        }
        attempt++
        state({
          kind: 'reconnecting',
          attempt,
          reason: error instanceof ApiError ? error.describe() : ((error as Error)?.message ?? String(error)),
        })
        await sleep(Math.min(options.maxBackoffMs ?? 5000, 250 * 2 ** Math.min(attempt, 5)), signal)
      }
    }
  } catch (error) {
    if (!signal.aborted)
      state({
        kind: 'stopped',
        ...(error instanceof ApiError ? { error } : { error: new ApiError(0, 'feed', String((error as Error)?.message ?? error)) }),
      })
    return
  }
  options.onState?.({ kind: 'stopped' })
}

/** Reads one SSE response to its end, delivering the events of each chunk together. */
async function readStream(
  res: Response,
  deliver: (batch: SessionEvent[]) => void,
  signal: AbortSignal,
  onDelta?: (delta: LiveDelta) => void,
): Promise<void> {
  if (!res.body) throw new Error('the stream has no body')
  let batch: SessionEvent[] = []
  const parser = createParser({
    onEvent(message) {
      if (message.event === 'delta') {
        // Stored events that came in the same chunk go first: a delta never precedes what it follows.
        if (batch.length > 0) deliver(batch.splice(0))
        try {
          if (!signal.aborted) onDelta?.(JSON.parse(message.data) as LiveDelta)
        } catch {
          // A malformed delta is skipped: the stored text replaces it anyway.
        }
        return
      }
      const seq = Number(message.id)
      if (!Number.isSafeInteger(seq)) return
      try {
        const event = JSON.parse(message.data) as SessionEvent
        if (event.seq === seq) batch.push(event)
      } catch {
        // A malformed event is skipped; the next one still counts.
      }
    },
  })
  const reader = res.body.pipeThrough(new TextDecoderStream()).getReader()
  const stop = () => void reader.cancel().catch(() => undefined)
  signal.addEventListener('abort', stop, { once: true })
  try {
    for (;;) {
      const { done, value } = await reader.read()
      if (done) return
      parser.feed(value)
      if (batch.length > 0) {
        const out = batch
        batch = []
        deliver(out)
      }
    }
  } finally {
    signal.removeEventListener('abort', stop)
  }
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise(resolve => {
    const t = setTimeout(resolve, ms)
    signal.addEventListener('abort', () => (clearTimeout(t), resolve()), { once: true })
  })
}
