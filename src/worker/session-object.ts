import { DurableObject } from 'cloudflare:workers'
import { durableObjectStore } from 'agent-vfs'
import {
  createSessionApp,
  createSessionHost,
  DEFAULT_OWNER_QUOTA,
  describeError,
  storedSessionIds,
  type EventLine,
  type ForkOffer,
  type ForkPage,
  type SessionHost,
  type SessionRecord,
} from 'agent-vfs/session'
import { adopted, answer, forkAcross, forkSourceOf, type Answer } from './forks.js'
import { d1OwnerIndex } from './d1-owner-index.js'
import { edgeOptions, jwtSecret, mcpOrigins, type EdgeEnv } from './options.js'
import { SocketHub } from './sockets.js'

/** The namespace of the host's scopes inside the object's own SQLite storage. */
const NAMESPACE = 'sessions'

/** What {@link SessionObject.createSession} answers: the record, or the API's error for it. */
export type CreateSessionResult = { record: SessionRecord } | { error: { status: number; code: string; message: string } }

/**
 * One agent session per SQLite-backed Durable Object, named by the session id. The object holds
 * the session's workspace, event log, messages and pending actions in its own storage
 * (`durableObjectStore(ctx.storage)`), runs its executions (the agent loop, run_js included), and
 * serves `/sessions/:id/**` with the same hono app as the Node host (`createSessionApp`), which
 * checks the bearer JWT again; `GET /sessions/:id/ws` is a hibernatable WebSocket.
 *
 * Its host is `exclusive`: a Durable Object has one live instance, so a lease left by an evicted
 * instance is taken over at once. While an execution may run the object keeps an alarm set; the
 * alarm continues a run an eviction stopped from its last checkpoint, waits for it a bounded time
 * and sets the next alarm, and deletes the session once it has been closed longer than the
 * retention. Configure it through {@link createEdgeApp} in the same script.
 */
export class SessionObject extends DurableObject<EdgeEnv> {
  #host: SessionHost | undefined
  #app: { fetch(request: Request): Response | Promise<Response> } | undefined
  #sessionId: string | undefined
  readonly #sockets: SocketHub

  constructor(ctx: DurableObjectState, env: EdgeEnv) {
    super(ctx, env)
    // Answered by the runtime without waking the object.
    ctx.setWebSocketAutoResponse(new WebSocketRequestResponsePair('ping', 'pong'))
    this.#sockets = new SocketHub(ctx, {
      read: (id, after, limit) => this.#hostOf().eventLines(id, { after, limit }),
      // The object's own commits are the only writes to its log and they wake the tail: no poll, so it may hibernate.
      tail: (id, listener) => this.#hostOf().tail(id, listener, Infinity),
      live: (id, listener) => this.#hostOf().liveText(id, listener),
    })
  }

  #hostOf(): SessionHost {
    const options = edgeOptions()
    return (this.#host ??= createSessionHost({
      store: durableObjectStore(this.ctx.storage),
      agents: options.agents,
      namespace: NAMESPACE,
      exclusive: true,
      ownerIndex: d1OwnerIndex(this.env.DB),
      quota: options.quota ?? DEFAULT_OWNER_QUOTA,
      ...(options.budgets ? { budgets: options.budgets } : {}),
      // Hibernated WebSockets count against the owner's streams with the SSE streams this host serves.
      streamsElsewhere: owner => this.#sockets.count(owner),
      ...(options.leaseMs !== undefined ? { leaseMs: options.leaseMs } : {}),
      ...(options.pollMs !== undefined ? { pollMs: options.pollMs } : {}),
      ...(options.heartbeatMs !== undefined ? { heartbeatMs: options.heartbeatMs } : {}),
      // The WebSockets and SSE observers share the host's tail, which the host's own commits wake; after a wake
      // from hibernation, a commit also brings the sockets this instance does not follow yet onto the tail.
      signals: { publish: () => this.#sockets.push(), subscribe: () => () => undefined },
      // A fork this object holds reads its original's object until its copy is complete.
      forkSource: (from, forkId) => forkSourceOf(this.env, from, forkId),
    }))
  }

  #appOf() {
    return (this.#app ??= this.#newApp())
  }

  #newApp() {
    const options = edgeOptions()
    const app = createSessionApp(this.#hostOf(), {
      auth: { secret: jwtSecret(this.env) },
      // Each session is its own object: a fork is copied into the new session's object (forks.ts).
      forks: (id, at, o) => forkAcross(this.env, this.#hostOf(), id, at, o),
      webSocket: (request, session) =>
        this.#sockets.accept(
          session.id,
          session.owner,
          session.after,
          request.headers.get('sec-websocket-protocol'),
          new URL(request.url).searchParams.get('batch') === '1',
          new URL(request.url).searchParams.get('live') === '1',
        ),
      ...(options.heartbeatMs !== undefined ? { heartbeatMs: options.heartbeatMs } : {}),
      ...(options.idleTimeoutMs !== undefined ? { idleTimeoutMs: options.idleTimeoutMs } : {}),
      ...(options.maxUploadBytes !== undefined ? { maxUploadBytes: options.maxUploadBytes } : {}),
      ...(options.maxJsonBytes !== undefined ? { maxJsonBytes: options.maxJsonBytes } : {}),
    })
    // After the app's auth and body limits, like every session route.
    // Live MCP streams need no poll: the object's own commits are the only writes to its log and wake the tail.
    options.mcp?.(app, this.#hostOf(), { allowedOrigins: mcpOrigins(this.env), pollMs: Infinity })
    return app
  }

  /** The id of the session this object holds (undefined before its creation and after its deletion). */
  async #session(): Promise<string | undefined> {
    if (this.#sessionId) return this.#sessionId
    return (this.#sessionId = (await storedSessionIds(durableObjectStore(this.ctx.storage), NAMESPACE))[0])
  }

  /**
   * Creates the session this object is named after (the Worker calls it for `POST /sessions`,
   * after picking the id). Errors come back as the API's error, not thrown: RPC keeps no error class.
   */
  async createSession(input: { id: string; owner: string; profile: string; title?: string }): Promise<CreateSessionResult> {
    try {
      const name = this.ctx.id.name
      if ((name !== undefined && name !== input.id) || (await this.#session()) !== undefined) {
        return {
          error: {
            status: 409,
            code: 'conflict',
            message: 'this object holds another session: address a session object by its id',
          },
        }
      }
      const record = await this.#hostOf().create(input)
      this.#sessionId = record.id
      return { record }
    } catch (error) {
      const { status, code, message } = describeError(error)
      if (status === 500) console.error(error)
      return { error: { status, code, message } }
    }
  }

  /**
   * Creates the fork this object is named after from the original's offer (the original's object
   * calls it: forks.ts), then copies it. The alarm is set first: a copy an eviction cuts is
   * finished by it, from where it stopped.
   */
  async adoptFork(input: { offer: ForkOffer; id: string; title?: string }): Promise<CreateSessionResult & { kept?: true }> {
    const name = this.ctx.id.name
    if ((name !== undefined && name !== input.id) || (await this.#session()) !== undefined)
      return { error: { status: 409, code: 'conflict', message: 'this object holds another session: address a session object by its id' } }
    await this.#armAt(Date.now() + this.#tickMs())
    const result = adopted(
      await answer(() =>
        this.#hostOf().remoteForks.adopt(input.offer, input.id, forkSourceOf(this.env, input.offer.from, input.id), input),
      ),
    )
    if ('record' in result) this.#sessionId = result.record.id
    // A refused fork (over quota) left nothing: the object holds no session.
    else if ((await this.#session()) === undefined) await this.#wipe()
    // A fork stored and cut half-way (the original unreachable for a while): the alarm finishes it, through the original's pin.
    else return { ...result, kept: true }
    return result
  }

  /** The original's side of a fork's copy (forks.ts): a page of its workspace at the fork's point. */
  forkPage(sessionId: string, forkId: string, cursor: string): Promise<Answer<ForkPage>> {
    return answer(() => this.#hostOf().remoteForks.page(sessionId, forkId, cursor, edgeOptions().forkPageBytes))
  }

  /** The original's side of a fork's copy: its events after `after`. */
  forkEvents(sessionId: string, after: number, limit: number): Promise<Answer<EventLine[]>> {
    return answer(() => this.#hostOf().eventLines(sessionId, { after, limit }))
  }

  /** The original's side of a fork's copy: the copy is complete, the pin goes. */
  forkRelease(sessionId: string, forkId: string): Promise<Answer<void>> {
    return answer(() => this.#hostOf().remoteForks.release(sessionId, forkId))
  }

  override async fetch(request: Request): Promise<Response> {
    const response = await this.#appOf().fetch(request)
    if (request.method !== 'GET' && response.status < 300) {
      const id = await this.#session()
      if (request.method === 'DELETE' && id && new URL(request.url).pathname === `/sessions/${id}`) await this.#wipe()
      // A message, an answer, an abort, a resume or a reopen is durable work (see docs/recovery.md): the
      // alarm, set before the answer, finds it through recover() after an eviction.
      else await this.#armAt(Date.now() + this.#tickMs())
    }
    return response
  }

  override async alarm(): Promise<void> {
    const id = await this.#session()
    if (!id) return
    const host = this.#hostOf()
    // get() continues a running execution whose lease an earlier instance left (exclusive host).
    const record = await host.get(id).catch(() => undefined)
    if (!record) return
    if (record.status === 'closed') return this.#retain(record)
    // History retention (docs/history.md): one bounded pass over this object's session; more to do, another alarm.
    const history = await host.collectHistory({ only: [id] }).catch(() => undefined)
    if (history?.more) await this.#armAt(Date.now() + this.#tickMs())
    await host.recover()
    const budget = edgeOptions().alarm?.budgetMs ?? 20_000
    let timer: ReturnType<typeof setTimeout> | undefined
    const settled = await Promise.race([
      host.settled(id).then(() => true),
      new Promise<false>(r => (timer = setTimeout(() => r(false), budget))),
    ])
    clearTimeout(timer)
    const now = await host.get(id).catch(() => undefined)
    if (!now) return
    if (now.status === 'closed') return this.#retain(now)
    // Still working (or a run that stopped without settling its status): look again soon.
    if (!settled || now.status === 'running') await this.#armAt(Date.now() + this.#tickMs())
  }

  override async webSocketMessage(ws: WebSocket, message: string | ArrayBuffer): Promise<void> {
    // Observers only listen; `ping` is answered by the runtime (see the constructor).
    if (message !== 'ping')
      ws.send(JSON.stringify({ type: 'error', code: 'invalid', message: 'this socket only sends events; send `ping` to get `pong`' }))
  }

  override async webSocketClose(ws: WebSocket, code: number, reason: string): Promise<void> {
    this.#sockets.closed(ws)
    try {
      ws.close(code === 1005 ? 1000 : code, reason)
    } catch {
      // already closed
    }
  }

  #tickMs(): number {
    return edgeOptions().alarm?.tickMs ?? 1000
  }

  /** Sets the alarm at `at` unless one is due earlier. */
  async #armAt(at: number): Promise<void> {
    const current = await this.ctx.storage.getAlarm()
    if (current === null || current > at) await this.ctx.storage.setAlarm(at)
  }

  /** A closed session: deleted once past its retention, else an alarm for that moment. */
  async #retain(record: SessionRecord): Promise<void> {
    const retention = edgeOptions().retention
    if (!retention) return
    const due = (record.closedAt ?? record.updatedAt) + retention.closedMs
    if (due > Date.now()) return this.#armAt(due)
    await this.#hostOf().delete(record.id)
    await this.#wipe()
  }

  /** After the session's deletion: nothing of it stays in the object. */
  async #wipe(): Promise<void> {
    await this.#host?.stop()
    this.#host = undefined
    this.#app = undefined
    this.#sessionId = undefined
    await this.ctx.storage.deleteAlarm()
    await this.ctx.storage.deleteAll()
  }
}
