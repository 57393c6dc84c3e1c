import {
  applySessionEvent,
  emptySessionView,
  eventPages,
  SessionApiError,
  type ObservedEvent,
  type SessionClient,
  type SessionView,
} from 'agent-vfs/client'

/** What the hooks read of one session: its view, the latest events, and how far loading got. */
export interface SessionSnapshot {
  view: SessionView
  /** The latest events, oldest first, at most `maxEvents` of them (live deltas included when observed live). */
  events: readonly ObservedEvent[]
  /** True once the log up to the moment of the first subscription is applied (what Suspense waits for). */
  ready: boolean
  /** What stopped the stream for good (401, 404, a server that breaks the protocol); observe retries everything else. */
  error?: SessionApiError
}

/** Options of one session's store. */
export interface SessionStoreOptions {
  /** Observe the live text of a running model call too (`delta` events). Default true. */
  live?: boolean
  /** How many of the latest events `useEvents` keeps. Default 500. */
  maxEvents?: number
}

/** The empty snapshot a server render and a hydration render see (never the client's own). */
export const SERVER_SNAPSHOT: SessionSnapshot = Object.freeze({ view: emptySessionView(), events: [], ready: false })

/** A store nobody subscribes to any more stops after this long (React's strict mode unsubscribes and subscribes again at once). */
const LINGER_MS = 1000

/**
 * One session's state as an external store (React's `useSyncExternalStore`): the log read up to now in
 * pages (`listEvents`: what `ready` and Suspense wait for), then `observe` from there, which reconnects
 * by itself. It starts with its first subscriber and stops a moment after its last one leaves; it does
 * nothing at construction, so a server render starts no request.
 */
export class SessionStore {
  private snapshot: SessionSnapshot = { view: emptySessionView(), events: [], ready: false }
  private readonly listeners = new Set<() => void>()
  private controller: AbortController | undefined
  private readyPromise: Promise<void> | undefined
  private stopTimer: ReturnType<typeof setTimeout> | undefined

  constructor(
    private readonly client: SessionClient,
    readonly sessionId: string,
    private readonly options: SessionStoreOptions,
    private readonly onStop: () => void,
  ) {}

  getSnapshot = (): SessionSnapshot => this.snapshot

  subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener)
    clearTimeout(this.stopTimer)
    this.start()
    return () => {
      this.listeners.delete(listener)
      if (this.listeners.size === 0) this.stopTimer = setTimeout(() => this.stop(), LINGER_MS)
    }
  }

  /** Resolves once the log up to now is applied (starts loading it if nothing has): what Suspense waits for. */
  ready(): Promise<void> {
    this.start()
    return this.readyPromise!
  }

  private start() {
    if (this.controller) return
    const controller = (this.controller = new AbortController())
    this.readyPromise = this.run(controller.signal)
    // Started for Suspense with nobody subscribing (a render that was thrown away): stop in a while.
    if (this.listeners.size === 0) this.stopTimer = setTimeout(() => this.stop(), LINGER_MS * 30)
  }

  private stop() {
    if (this.listeners.size > 0) return
    this.controller?.abort()
    // A later subscriber to this same object starts again, from the view's `lastSeq`.
    this.controller = undefined
    this.onStop()
  }

  private async run(signal: AbortSignal): Promise<void> {
    const readyAt = this.catchUp(signal)
    try {
      await readyAt
    } catch (error) {
      return this.fail(error, signal)
    }
    // The stream runs on after `ready` resolves.
    void this.follow(signal)
  }

  /** The log up to now, a page at a time, applied at once (one render for the whole catch-up). */
  private async catchUp(signal: AbortSignal) {
    let view = this.snapshot.view
    const events: ObservedEvent[] = []
    for await (const page of eventPages(this.client, this.sessionId, { after: view.lastSeq, signal })) {
      for (const event of page) view = applySessionEvent(view, event)
      // Only the latest `maxEvents` are kept: a long log costs no more than that.
      events.push(...page.slice(-this.maxEvents))
      if (events.length > this.maxEvents) events.splice(0, events.length - this.maxEvents)
    }
    if (signal.aborted) return
    this.publish({ view, events: this.keep(this.snapshot.events, events), ready: true })
  }

  private async follow(signal: AbortSignal) {
    try {
      const observe = this.client.observe(this.sessionId, { after: this.snapshot.view.lastSeq, live: this.options.live ?? true, signal })
      for await (const event of observe) {
        const { view, events } = this.snapshot
        this.publish({ view: applySessionEvent(view, event), events: this.keep(events, [event]), ready: true })
      }
    } catch (error) {
      this.fail(error, signal)
    }
  }

  private fail(error: unknown, signal: AbortSignal) {
    if (signal.aborted) return
    const failure = error instanceof SessionApiError ? error : new SessionApiError(0, 'bad-response', String(error), { cause: error })
    this.publish({ ...this.snapshot, ready: true, error: failure })
  }

  private get maxEvents() {
    return this.options.maxEvents ?? 500
  }

  private keep(events: readonly ObservedEvent[], added: ObservedEvent[]): readonly ObservedEvent[] {
    const all = [...events, ...added]
    return all.length > this.maxEvents ? all.slice(-this.maxEvents) : all
  }

  private publish(next: SessionSnapshot) {
    this.snapshot = next
    for (const listener of this.listeners) listener()
  }
}

const stores = new WeakMap<SessionClient, Map<string, SessionStore>>()

/** The store of one session of one client, shared by every hook that asks for it (one stream per session). */
export function sessionStore(client: SessionClient, sessionId: string, options: SessionStoreOptions = {}): SessionStore {
  let byKey = stores.get(client)
  if (!byKey) stores.set(client, (byKey = new Map()))
  const key = `${options.live ?? true}:${options.maxEvents ?? 500}:${sessionId}`
  let store = byKey.get(key)
  if (!store) {
    store = new SessionStore(client, sessionId, options, () => byKey.get(key) === store && byKey.delete(key))
    byKey.set(key, store)
  }
  return store
}
