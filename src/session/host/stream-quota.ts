/**
 * The event streams (SSE, WebSocket) each owner has open on one host, held to `maxStreams`.
 * `open` checks and counts in one synchronous step, so two streams opened at once cannot both
 * take the last place.
 */
export class StreamCounter {
  readonly #open = new Map<string, number>()

  constructor(
    private readonly max: number | undefined,
    /** Streams of an owner this host serves outside the counter (a Durable Object's hibernated WebSockets). */
    private readonly elsewhere: (owner: string) => number = () => 0,
  ) {}

  /** Streams `owner` has open now. */
  count(owner: string): number {
    return (this.#open.get(owner) ?? 0) + this.elsewhere(owner)
  }

  /** Counts a new stream of `owner`; its release (call it once the stream ends), or undefined when the owner is at the limit. */
  open(owner: string): (() => void) | undefined {
    if (this.max !== undefined && this.count(owner) >= this.max) return undefined
    this.#open.set(owner, (this.#open.get(owner) ?? 0) + 1)
    let released = false
    return () => {
      if (released) return
      released = true
      const n = (this.#open.get(owner) ?? 1) - 1
      if (n > 0) this.#open.set(owner, n)
      else this.#open.delete(owner)
    }
  }
}
