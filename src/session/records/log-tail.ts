import type { SessionNews } from './signals.js'
import type { EventLine, SessionEvent } from '../types.js'

/** Where a tail reads a session's log and hears that it changed. */
export interface TailSource {
  /** Up to `limit` stored events with `seq > after`, in order, as their JSON lines. */
  read(after: number, limit: number): Promise<EventLine[]>
  /** The last stored sequence (0: none). */
  last(): Promise<number>
  /**
   * Calls `wake` when the log may have grown (signals, the store's watch), with what the signal
   * knows of it (see {@link SessionNews}); returns the unsubscribe.
   */
  watch(wake: (news?: SessionNews) => void): () => void
}

/** One event as the tail read it: parsed once, with its stored text for hosts that pass it on as is. */
export interface TailEvent {
  event: SessionEvent
  json: string
}

/** What a subscriber hears: every new event in order, a batch per store read. */
export type TailListener = (events: TailEvent[]) => void

const PAGE = 1000
const immediate = (globalThis as { setImmediate?: (run: () => void) => unknown }).setImmediate
// Node's setImmediate runs after the I/O poll; elsewhere (workerd, browsers) a zero timer does the same job.
const nextTask = (run: () => void): unknown => (immediate ? immediate(run) : setTimeout(run, 0))

/**
 * The one reader of a session's log on this host. While anybody listens it follows the log (a
 * wake from the signals or the store's watch, and one poll for writers that signal nothing), reads
 * each new batch from the store once and hands the same events to every listener. A commit made in
 * this process comes with its lines (the signal's news): when they follow the head they are handed
 * out as they are, with no read; news the tail already has costs nothing; anything else (a gap, a
 * remote writer, a wake without news) is read from the store. Nobody listening: no watch, no timer,
 * no read. Every event it hands out is durable (read from the store, or from a commit that
 * succeeded), so a listener never sees an event that could still be lost.
 */
export class LogTail {
  /** The last sequence read (and handed out); undefined until the tail has placed itself. */
  #head: number | undefined
  #placing: Promise<number> | undefined
  readonly #listeners = new Map<TailListener, number>()
  #unwatch: (() => void) | undefined
  #timer: ReturnType<typeof setInterval> | undefined
  #pollMs = Infinity
  /** When the tail last handed out events (Date.now()): a poll right after news is skipped. */
  #heard = 0
  #pulling = false
  #again = false
  /** Bumped when the tail stops, so a read begun before cannot hand out events after. */
  #generation = 0
  /** Events handed in this task, for the listeners in the next. */
  #pending: TailEvent[] = []

  constructor(
    private readonly source: TailSource,
    private readonly defaultPollMs: number,
  ) {}

  /** How many listen now. */
  get listeners(): number {
    return this.#listeners.size
  }

  /**
   * Starts hearing the events after the tail's head; resolves to that head once the tail knows it.
   * Events up to the head are the subscriber's to read from the store (its catch-up); every event
   * above it reaches `listener`, in order, with no gap. The returned `off` stops it.
   */
  async subscribe(listener: TailListener, pollMs?: number): Promise<{ head: number; off: () => void }> {
    this.#listeners.set(listener, Math.max(10, pollMs ?? this.defaultPollMs))
    const off = () => {
      if (!this.#listeners.delete(listener)) return
      if (this.#listeners.size === 0) this.#stop()
      else this.#schedule()
    }
    if (this.#listeners.size === 1) this.#unwatch = this.source.watch(news => this.#wake(news))
    this.#schedule()
    try {
      return { head: await this.#place(), off }
    } catch (error) {
      off()
      throw error
    }
  }

  /** The head, found once per start of the tail: listeners that join later share it. */
  #place(): Promise<number> {
    if (this.#head !== undefined) return Promise.resolve(this.#head)
    const generation = this.#generation
    return (this.#placing ??= this.source.last().then(
      last => {
        if (generation === this.#generation) {
          this.#head ??= last
          this.#placing = undefined
        }
        // A wake that came while placing found no head: read what it announced now.
        if (this.#again) void this.#pull()
        return this.#head ?? last
      },
      error => {
        this.#placing = undefined
        throw error
      },
    ))
  }

  /** One poll for the whole tail, as often as its most eager listener asks. */
  #schedule(): void {
    const pollMs = Math.min(...this.#listeners.values())
    if (pollMs === this.#pollMs && (this.#timer !== undefined || !Number.isFinite(pollMs))) return
    clearInterval(this.#timer)
    this.#pollMs = pollMs
    // Listeners that want no poll (a Durable Object's sockets: its own commits wake the tail) set no timer,
    // so the object may hibernate.
    // While events arrive (news or reads) the poll waits: a writer that signals nothing shows up as
    // a gap before the next news, which is read then, or in the first poll after the news stops.
    // So many busy tails do not all read at each tick.
    this.#timer = Number.isFinite(pollMs)
      ? setInterval(() => {
          if (Date.now() - this.#heard >= this.#pollMs) void this.#pull()
        }, pollMs)
      : undefined
    // A poll must not keep a Node process alive on its own.
    ;(this.#timer as { unref?: () => void } | undefined)?.unref?.()
  }

  #stop(): void {
    this.#generation++
    this.#unwatch?.()
    this.#unwatch = undefined
    clearInterval(this.#timer)
    this.#timer = undefined
    this.#pollMs = Infinity
    this.#head = undefined
    this.#placing = undefined
    this.#again = false
    this.#pending = []
    // A read still in flight belongs to the old generation: it hands nothing out.
    this.#pulling = false
  }

  /** A signal: hands out the lines it carries when they follow the head, skips news already had, else reads. */
  #wake(news?: SessionNews): void {
    const head = this.#head
    if (head !== undefined && news?.last !== undefined && news.last <= head) return
    const fresh = head === undefined ? [] : (news?.lines ?? []).filter(l => l.seq > head)
    if (fresh.length === 0 || fresh[0].seq !== head! + 1 || fresh[fresh.length - 1].seq !== fresh[0].seq + fresh.length - 1) {
      void this.#pull()
      return
    }
    this.#hand(fresh)
  }

  /**
   * Moves the head to the last of `lines` (consecutive, after the head) and gives them to every
   * listener in the next task: the writer whose commit this was goes on first (its next query is on
   * its way while the fan-out runs), and the commits of one task reach the listeners as one batch.
   * A listener that joins meanwhile was given the new head: it reads these events from the store,
   * and its cursor drops them when the batch comes.
   */
  #hand(lines: readonly EventLine[]): void {
    this.#head = lines[lines.length - 1].seq
    this.#heard = Date.now()
    for (const l of lines) this.#pending.push({ event: JSON.parse(l.json) as SessionEvent, json: l.json })
    if (this.#pending.length !== lines.length) return
    const generation = this.#generation
    nextTask(() => {
      // A tail stopped meanwhile dropped these; what it hands since is the next generation's to send.
      if (generation !== this.#generation) return
      const batch = this.#pending
      this.#pending = []
      for (const listener of [...this.#listeners.keys()]) {
        try {
          listener(batch)
        } catch {
          // one listener's failure must not stop the others
        }
      }
    })
  }

  /** Reads what is new since the head and hands it out; reads never overlap (one more follows when woken meanwhile). */
  async #pull(): Promise<void> {
    if (this.#listeners.size === 0) return
    if (this.#pulling || this.#head === undefined) {
      this.#again = true
      return
    }
    this.#pulling = true
    const generation = this.#generation
    try {
      do {
        this.#again = false
        for (;;) {
          const lines = await this.source.read(this.#head!, PAGE)
          if (generation !== this.#generation) return
          // Against the head now: a commit's news may have moved it while the read was in flight.
          const head: number = this.#head!
          const fresh: EventLine[] = lines.filter(l => l.seq > head)
          if (fresh.length > 0) this.#hand(fresh)
          if (lines.length < PAGE) break
        }
      } while (this.#again && generation === this.#generation)
    } catch {
      // The store failed this once: the next wake or poll reads again from the same head.
    } finally {
      if (generation === this.#generation) this.#pulling = false
    }
  }
}

/** The tails of one host, one per observed session; a tail nobody listens to is dropped. */
export class LogTails {
  readonly #tails = new Map<string, LogTail>()

  constructor(
    private readonly sourceOf: (sessionId: string) => TailSource,
    private readonly pollMs: number,
  ) {}

  async subscribe(sessionId: string, listener: TailListener, pollMs?: number): Promise<{ head: number; off: () => void }> {
    let tail = this.#tails.get(sessionId)
    if (!tail) this.#tails.set(sessionId, (tail = new LogTail(this.sourceOf(sessionId), this.pollMs)))
    const sub = await tail.subscribe(listener, pollMs).catch(error => {
      if (tail.listeners === 0 && this.#tails.get(sessionId) === tail) this.#tails.delete(sessionId)
      throw error
    })
    return {
      head: sub.head,
      off: () => {
        sub.off()
        if (tail.listeners === 0 && this.#tails.get(sessionId) === tail) this.#tails.delete(sessionId)
      },
    }
  }

  /** Sessions with a tail now (tests, metrics). */
  get size(): number {
    return this.#tails.size
  }
}
