import type { ObservedEvent, SessionClient } from 'agent-vfs/client'
import type { UIMessageChunk } from 'ai'
import { ChunkMapper, type CarriedPart } from './chunks.js'

/** Where one reply starts and ends in a session's log. */
export interface ReplyBounds {
  /** Observe after this sequence (events up to the reply's first one are read and skipped). */
  after: number
  /** The reply's first event: a person's message, or the answer that resumed it. */
  startsAt: (event: ObservedEvent) => boolean
  /** The reply ends at the first status other than `running` whose seq is at least this (0: any). */
  endsFrom: number
  /** Parts an earlier stream made whose results this one brings. */
  carried?: CarriedPart[]
}

/** Options of {@link replyStream}. */
export interface ReplyStreamOptions {
  client: SessionClient
  sessionId: string
  live: boolean
  signal: AbortSignal | undefined
  /** Called with each stored event's seq as it is streamed (where the next reply may start observing). */
  onSeq?: (seq: number) => void
}

/**
 * One reply of a session as the AI SDK's chunk stream: `start`, the chunks of its events (see
 * {@link ChunkMapper}), `finish` when the session stops running (idle, waiting for a person, closed).
 * The events come from `observe`, which reconnects by itself; cancelling the stream or aborting
 * `signal` ends it.
 */
export function replyStream(options: ReplyStreamOptions, bounds: ReplyBounds): ReadableStream<UIMessageChunk> {
  const stop = new AbortController()
  const signal = options.signal ? AbortSignal.any([options.signal, stop.signal]) : stop.signal
  const chunks = replyChunks(options, bounds, signal)
  return new ReadableStream<UIMessageChunk>({
    async pull(controller) {
      try {
        const next = await chunks.next()
        if (next.done) controller.close()
        else controller.enqueue(next.value)
      } catch (error) {
        controller.error(error)
      }
    },
    cancel() {
      stop.abort()
      void chunks.return(undefined)
    },
  })
}

async function* replyChunks(options: ReplyStreamOptions, bounds: ReplyBounds, signal: AbortSignal): AsyncGenerator<UIMessageChunk> {
  const mapper = new ChunkMapper(bounds.carried)
  let started = false
  yield { type: 'start' }
  for await (const event of options.client.observe(options.sessionId, { after: bounds.after, live: options.live, signal })) {
    if (event.type !== 'delta') options.onSeq?.(event.seq)
    if (!started) {
      started = bounds.startsAt(event)
      continue
    }
    yield* mapper.map(event)
    const stopped = event.type === 'session-closed' || (event.type === 'status' && event.status !== 'running')
    if (stopped && event.seq >= bounds.endsFrom) break
  }
  if (signal.aborted) return
  yield* mapper.end()
  yield { type: 'finish' }
}
