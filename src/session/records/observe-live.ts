import type { LiveDelta, LiveSubscription, LiveListener } from './live-text.js'
import type { Heartbeat, SessionEvent } from '../types.js'

/** Live deltas an observer holds unconsumed at most; beyond, it starts again from a snapshot. */
const MAX_QUEUED = 1000

/**
 * What one observer was sent of each live stream, so that each character goes out once: a delta
 * that overlaps what was sent is cut, one that would leave a hole is replaced by the stream's text
 * so far, and nothing of a stream goes out after its durable `text`/`reasoning` event did.
 */
export class LiveCursor {
  /** Per stream: characters sent; -1 once its durable event went out. */
  readonly #sent = new Map<string, number>()

  constructor(private readonly snapshot: () => LiveDelta[]) {}

  /** What of `d` this observer still needs (undefined: nothing). */
  cut(d: LiveDelta): LiveDelta | undefined {
    const have = this.#sent.get(d.streamId) ?? 0
    if (have < 0) return undefined
    if (d.discarded) {
      this.#sent.delete(d.streamId)
      return d
    }
    if (d.at > have) d = this.snapshot().find(s => s.streamId === d.streamId) ?? d
    const end = d.at + d.delta.length
    if (end <= have) return undefined
    this.#sent.set(d.streamId, end)
    return d.at >= have ? d : { ...d, at: have, delta: d.delta.slice(have - d.at) }
  }

  /** A stored event went out: a `text` or `reasoning` event ends its stream for this observer. */
  stored(e: SessionEvent | Heartbeat): void {
    if ((e.type === 'text' || e.type === 'reasoning') && typeof e.streamId === 'string') this.#sent.set(e.streamId, -1)
  }
}

/**
 * Adds the session's live text to an observer's events: first the text so far of every open
 * stream (one delta from `at: 0` each), then deltas as they come, between the stored events,
 * through a {@link LiveCursor}.
 */
export async function* withLiveText(
  events: AsyncGenerator<SessionEvent | Heartbeat>,
  subscribe: (listener: LiveListener) => LiveSubscription,
): AsyncGenerator<SessionEvent | Heartbeat | LiveDelta> {
  let queue: LiveDelta[] = []
  let wake: (() => void) | undefined
  const sub = subscribe(batch => {
    queue.push(...batch)
    if (queue.length > MAX_QUEUED) queue = sub.snapshot()
    wake?.()
  })
  const cursor = new LiveCursor(sub.snapshot)
  queue.push(...sub.snapshot())
  let next: Promise<IteratorResult<SessionEvent | Heartbeat>> | undefined
  try {
    for (;;) {
      while (queue.length > 0) {
        const d = cursor.cut(queue.shift()!)
        if (d) yield d
      }
      next ??= events.next()
      const woken = new Promise<'live'>(resolve => (wake = () => resolve('live')))
      const first = await Promise.race([next, woken])
      wake = undefined
      if (first === 'live') continue
      next = undefined
      if (first.done) return
      cursor.stored(first.value)
      yield first.value
    }
  } finally {
    sub.off()
    // Not awaited: the stored events' observer ends at its next wake (its signal, an event, a heartbeat).
    void events.return(undefined).catch(() => undefined)
  }
}
