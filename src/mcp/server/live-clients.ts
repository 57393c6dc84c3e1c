import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js'

/** Bounds of the MCP clients a host keeps (defaults in parentheses; docs/mcp.md "Live"). */
export interface LiveMcpLimits {
  /** Resource subscriptions of one session, all its clients together (100). */
  maxSubscriptions?: number
  /** MCP clients (`Mcp-Session-Id`s) this host remembers for one owner; the least recently seen go first (64). */
  maxClientsPerOwner?: number
  /** MCP clients this host remembers in all; the least recently seen go first (10,000). */
  maxClients?: number
  /** A GET stream ends after this long without a session event; the client reconnects and resumes (300,000 ms). */
  idleMs?: number
  /** A keep-alive comment (which also advances the client's Last-Event-ID) after this long without a notification (15,000 ms). */
  heartbeatMs?: number
}

export const DEFAULT_LIVE_LIMITS: Required<LiveMcpLimits> = {
  maxSubscriptions: 100,
  maxClientsPerOwner: 64,
  maxClients: 10_000,
  idleMs: 300_000,
  heartbeatMs: 15_000,
}

/** Longest resource URI a client may subscribe to. */
const MAX_URI_CHARS = 4096
const ID_FORMAT = /^mcp-[0-9a-f]{32}$/

/**
 * One MCP client of a session (one `Mcp-Session-Id`). `subscriptions` is `all` for a client this
 * host did not know (it restarted, or forgot the client): it then hears `resources/updated` for
 * every file that changes, so a resumed stream loses nothing, until the client subscribes or
 * unsubscribes again and states what it wants.
 */
export interface LiveClient {
  readonly id: string
  readonly sessionId: string
  readonly owner: string
  subscriptions: Set<string> | 'all'
  /** Ends the client's open GET stream (a newer one replaces it; the client is forgotten). */
  stream?: AbortController
}

/** The MCP clients of this host's sessions, bounded per owner and in all (least recently seen first out). */
export class LiveClients {
  /** In order of use: the first is the least recently seen. */
  readonly #clients = new Map<string, LiveClient>()
  readonly #perOwner = new Map<string, number>()
  readonly #perSession = new Map<string, number>()
  readonly limits: Required<LiveMcpLimits>

  constructor(limits: LiveMcpLimits = {}) {
    this.limits = { ...DEFAULT_LIVE_LIMITS, ...definedOnly(limits) }
    for (const [name, value] of Object.entries(this.limits))
      if (!(typeof value === 'number' && value > 0)) throw new TypeError(`live.${name} must be a positive number`)
  }

  /** A new client of the session (an `initialize`). */
  create(sessionId: string, owner: string): LiveClient {
    const bytes = crypto.getRandomValues(new Uint8Array(16))
    const id = 'mcp-' + Array.from(bytes, b => b.toString(16).padStart(2, '0')).join('')
    return this.#add({ id, sessionId, owner, subscriptions: new Set() })
  }

  /**
   * The client `id` names on this session: undefined when the id is malformed or is another
   * session's or owner's (the caller answers 404). An id this host does not know is taken on
   * with every file subscribed (see {@link LiveClient}).
   */
  resolve(id: string, sessionId: string, owner: string): LiveClient | undefined {
    const known = this.#clients.get(id)
    if (known) {
      if (known.sessionId !== sessionId || known.owner !== owner) return undefined
      this.#clients.delete(id)
      this.#clients.set(id, known)
      return known
    }
    if (!ID_FORMAT.test(id)) return undefined
    return this.#add({ id, sessionId, owner, subscriptions: 'all' })
  }

  subscribe(client: LiveClient, uri: string): void {
    if (typeof uri !== 'string' || uri.length > MAX_URI_CHARS)
      throw new McpError(ErrorCode.InvalidParams, `a resource URI has at most ${MAX_URI_CHARS} characters`)
    const set = this.#stated(client)
    if (set.has(uri)) return
    const n = this.#perSession.get(client.sessionId) ?? 0
    if (n >= this.limits.maxSubscriptions)
      throw new McpError(
        ErrorCode.InvalidRequest,
        `this session has ${n} resource subscriptions, as many as the host allows: unsubscribe from one first`,
      )
    set.add(uri)
    this.#perSession.set(client.sessionId, n + 1)
  }

  unsubscribe(client: LiveClient, uri: string): void {
    if (this.#stated(client).delete(uri)) this.#count(this.#perSession, client.sessionId, -1)
  }

  /** Forgets the client (a DELETE, or eviction): its stream ends, its subscriptions go. */
  drop(client: LiveClient): void {
    if (this.#clients.get(client.id) !== client) return
    this.#clients.delete(client.id)
    this.#count(this.#perOwner, client.owner, -1)
    if (client.subscriptions !== 'all') this.#count(this.#perSession, client.sessionId, -client.subscriptions.size)
    client.stream?.abort()
  }

  /** A client that subscribes states its subscriptions from then on (see {@link LiveClient}). */
  #stated(client: LiveClient): Set<string> {
    if (client.subscriptions === 'all') client.subscriptions = new Set()
    return client.subscriptions
  }

  #add(client: LiveClient): LiveClient {
    // The owner's own least recently seen client goes first, so one owner cannot push out another's.
    if ((this.#perOwner.get(client.owner) ?? 0) >= this.limits.maxClientsPerOwner)
      this.drop([...this.#clients.values()].find(c => c.owner === client.owner)!)
    if (this.#clients.size >= this.limits.maxClients) this.drop(this.#clients.values().next().value!)
    this.#clients.set(client.id, client)
    this.#count(this.#perOwner, client.owner, 1)
    return client
  }

  #count(map: Map<string, number>, key: string, by: number): void {
    const n = (map.get(key) ?? 0) + by
    if (n > 0) map.set(key, n)
    else map.delete(key)
  }
}

function definedOnly<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>
}
