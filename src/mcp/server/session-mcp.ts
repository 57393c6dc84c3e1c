import type { RunVfs } from 'agent-vfs'
import { ReadLedger, type BashRunner, type RunJsRunner, type ToolLimits } from 'agent-vfs/agent'
import type { SessionHost } from 'agent-vfs/session'
import type { Hono } from 'hono'
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js'
import { workspaceMcpServer } from './workspace-server.js'
import { serveStatelessMcp } from './stateless-http.js'
import { LiveClients, type LiveMcpLimits } from './live-clients.js'
import { serveLiveMcp } from './live-http.js'
import { sessionTools } from './session-tools.js'
import { allowedOriginSet, originRefusal } from './origins.js'

/** Options of {@link mountSessionMcp}. */
export interface SessionMcpOptions {
  /**
   * Adds `run_js`: makes the runner from the workspace view it must use (/state read-only), e.g.
   * `(view, { owner }) => createRunJs({ vfs: view, tenant: owner })`. Without it there is no run_js.
   */
  runJs?: (vfs: RunVfs, session: { id: string; owner: string }) => RunJsRunner
  /**
   * Adds `bash`: makes the shell from the workspace view it must use (/state read-only), e.g.
   * `(view) => createBash({ vfs: view })` of `agent-vfs/bash` (just-bash is an optional peer: a host
   * without it passes none). Without it there is no bash tool. A command line's writes land as one
   * commit tagged `{ kind: 'mcp', tool: 'bash' }`; one that fails, times out or is aborted writes nothing.
   */
  bash?: (vfs: RunVfs, session: { id: string; owner: string }) => BashRunner
  limits?: Partial<ToolLimits>
  /** Sessions whose read ledgers (which file versions a client has read, for edit_file) this host keeps. Default 1,000. */
  ledgers?: number
  /**
   * Browser origins that may call the endpoint (`https://app.example.com`, or `*` for any page).
   * Default none: a request with a foreign `Origin` header is refused (403 `forbidden-origin`),
   * against DNS rebinding; clients that are not browsers send no `Origin` and pass.
   */
  allowedOrigins?: readonly string[]
  /**
   * Live clients (docs/mcp.md "Live"): `resources/subscribe`, and a GET stream of
   * `notifications/resources/updated` / `list_changed` from the session's file-change events,
   * resumable with `Last-Event-ID`. Bounds as given (defaults `DEFAULT_LIVE_LIMITS`); `false`: a
   * stateless endpoint (GET and DELETE 405, no subscriptions).
   */
  live?: LiveMcpLimits | false
  /**
   * How often a live stream's tail looks at the store without a signal (default: the host's
   * `pollMs`). A Durable Object passes `Infinity`: its own commits, the only writes, wake the tail.
   */
  pollMs?: number
}

/** What a host adds to a mount's options from its environment (the Worker: `AGENT_VFS_MCP_ORIGINS`). */
export interface SessionMcpSettings {
  /** Allowed as well as the options' own `allowedOrigins`. */
  allowedOrigins?: readonly string[]
  /** The options' `pollMs`, unless they give one. */
  pollMs?: number
}

/** What a client is told when it connects. */
const INSTRUCTIONS =
  "The durable workspace of an agent-vfs session. /context and /skills are read-only, /state is the runtime's (read-only here); " +
  'write under /work and /outputs. Read a file with read_file before edit_file changes it. Files are also resources (vfs:///<path>).'

/**
 * Serves `/sessions/:id/mcp` on a session app (`createSessionApp`, whose bearer auth and body
 * limits run first): the session's workspace as a streamable-HTTP MCP server for Claude Code,
 * Cursor or another agent; every POST answered by a fresh server (see `serveLiveMcp`), with live
 * clients' subscriptions and notification streams unless `live: false`. Another owner's session is 404,
 * like a missing one. The tools are the agent's own (`createWorkspaceTools`) over the workspace the
 * agent sees: every run root, `/context` and `/skills` read-only, `/state` read-only, nothing
 * outside them; a closed session is read-only as a whole. Writes land in the host's open workspace
 * (observers see them as they see the agent's) and count against the owner's byte quota.
 */
export function mountSessionMcp(app: Hono<{ Variables: { owner: string } }>, host: SessionHost, options: SessionMcpOptions = {}): void {
  const ledgers = new LedgerCache(options.ledgers ?? 1000)
  const origins = allowedOriginSet(options.allowedOrigins)
  const clients = options.live === false ? undefined : new LiveClients(options.live)
  app.all('/sessions/:id/mcp', async c => {
    const refused = originRefusal(c.req.raw, origins)
    if (refused) return refused
    const id = c.req.param('id')
    const owner = c.get('owner')
    // Not found, for a missing session and for another owner's alike.
    const record = await host.get(id, owner)
    const { tools, vfs } = await sessionTools(host, record, ledgers.of(id), options)
    const base = { tools, vfs, name: `agent-vfs session ${id}`, instructions: INSTRUCTIONS }
    if (!clients) return serveStatelessMcp(c.req.raw, () => workspaceMcpServer(base))
    return serveLiveMcp({
      request: c.req.raw,
      host,
      clients,
      sessionId: id,
      owner,
      ...(options.pollMs !== undefined ? { pollMs: options.pollMs } : {}),
      makeServer: client =>
        workspaceMcpServer({
          ...base,
          subscriptions: {
            subscribe: uri => {
              if (!client)
                throw new McpError(ErrorCode.InvalidRequest, 'subscribing needs the Mcp-Session-Id the answer to initialize gave')
              clients.subscribe(client, uri)
            },
            unsubscribe: uri => client && clients.unsubscribe(client, uri),
          },
        }),
    })
  })
}

/** Mounts `/sessions/:id/mcp` on a session app: what a host that builds its app itself takes (`createEdgeApp({ mcp })`). */
export type SessionMcpMount = (app: Hono<{ Variables: { owner: string } }>, host: SessionHost, settings?: SessionMcpSettings) => void

/**
 * {@link mountSessionMcp} with its options bound, for `createEdgeApp({ mcp: sessionMcp({ runJs }) })`:
 * a Worker that passes none bundles nothing of the MCP SDK. The host's settings add to the
 * options (the Worker's `AGENT_VFS_MCP_ORIGINS` to `allowedOrigins`).
 */
export function sessionMcp(options: SessionMcpOptions = {}): SessionMcpMount {
  allowedOriginSet(options.allowedOrigins)
  return (app, host, settings) =>
    mountSessionMcp(app, host, {
      ...options,
      allowedOrigins: [...(options.allowedOrigins ?? []), ...(settings?.allowedOrigins ?? [])],
      ...(options.pollMs === undefined && settings?.pollMs !== undefined ? { pollMs: settings.pollMs } : {}),
    })
}

/** The read ledger of each session, so edit_file works across stateless requests; the oldest go first. */
class LedgerCache {
  private readonly ledgers = new Map<string, ReadLedger>()
  constructor(private readonly max: number) {}

  of(sessionId: string): ReadLedger {
    let ledger = this.ledgers.get(sessionId)
    if (ledger) this.ledgers.delete(sessionId)
    else ledger = new ReadLedger()
    this.ledgers.set(sessionId, ledger)
    while (this.ledgers.size > this.max) this.ledgers.delete(this.ledgers.keys().next().value!)
    return ledger
  }
}
