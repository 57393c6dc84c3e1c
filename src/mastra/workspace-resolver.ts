import type { AgentControllerRequestContext } from '@mastra/core/agent-controller'
import type { RequestContext } from '@mastra/core/request-context'
import { Workspace, type WorkspaceConfig } from '@mastra/core/workspace'
import { vfsRegistry, type Vfs, type VfsRegistry, type VfsStore } from 'agent-vfs'
import { VfsFilesystem } from './filesystem.js'

/** Workspace settings besides the filesystem (skills, tool config, search, …). */
export type VfsWorkspaceConfig = Omit<WorkspaceConfig, 'filesystem' | 'mounts'>

/** Who is asking: what the controller put in the request context, flattened. */
export interface VfsSessionInfo {
  /** The session's resource (e.g. a user or project id); `undefined` outside an AgentController. */
  resourceId?: string
  /** The session's isolation scope within its resource, if it has one. */
  scope?: string
  /** The session id. */
  sessionId?: string
  /** The whole request context, for custom keys. */
  requestContext?: RequestContext
}

/** Options of {@link vfsWorkspaceResolver}. Pass `registry` or `store`. */
export interface VfsWorkspaceResolverOptions {
  /** Opens (and caches) workspace instances; shared with the rest of the application. */
  registry?: VfsRegistry
  /** Used through a registry of the resolver's own when no `registry` is given. */
  store?: VfsStore
  /** The namespace the sessions' scopes live in (e.g. the app or tenant). */
  namespace: string
  /**
   * The workspace scope of a session. Default: the controller's `resourceId`, followed by
   * `:<scope>` when the session has a scope; `defaultScope` when there is no controller context.
   */
  scopeOf?: (session: VfsSessionInfo) => string
  /** The scope used when no controller context is present. Default `'default'`. */
  defaultScope?: string
  /** Refuse writes; Mastra then offers no write tools. Default false. */
  readOnly?: boolean
  /** A view of the opened workspace to give Mastra instead (e.g. `scopeRun(vfs, { runId })`). */
  view?: (vfs: Vfs, scope: string) => Vfs
  /** Settings of each Workspace (skills, tools, …), fixed or per scope. */
  workspace?: VfsWorkspaceConfig | ((ctx: { vfs: Vfs; scope: string }) => VfsWorkspaceConfig)
  /**
   * Most sessions kept in memory (default 100; `Infinity` for no bound). One more evicts the least
   * recently resolved one: its writes are flushed and its workspace released. A session still
   * holding that Workspace keeps working (its files reopen from the store on the next call); the
   * next resolve makes a new Workspace. Also bounds the registry the resolver makes from `store`.
   */
  maxCached?: number
}

/**
 * What `AgentController` (or an `Agent`) takes as `workspace`: a factory that returns the same
 * Workspace for every call of the same session, plus ways to reach and drop the cached ones.
 */
export interface VfsWorkspaceResolver {
  /** The memoised Workspace of the session the request belongs to. */
  (args: { requestContext?: RequestContext; mastra?: unknown }): Promise<Workspace>
  /** The workspace scope a request maps to. */
  scopeOf(requestContext?: RequestContext): string
  /** The memoised Workspace of a scope, opening it on first use. */
  forScope(scope: string): Promise<Workspace>
  /** Scopes with a cached Workspace, least recently used first. */
  cached(): string[]
  /** Drops a scope's Workspace and evicts its workspace from the registry (data stays). */
  evict(scope: string): Promise<void>
  /** Evicts every cached scope. */
  closeAll(): Promise<void>
}

/** The controller's entry in a request context, if any. */
function controllerOf(requestContext: RequestContext | undefined): Partial<AgentControllerRequestContext> | undefined {
  const get = (requestContext as { get?: (key: string) => unknown } | undefined)?.get
  if (typeof get !== 'function') return undefined
  const value = get.call(requestContext, 'controller')
  return typeof value === 'object' && value !== null ? (value as Partial<AgentControllerRequestContext>) : undefined
}

/**
 * A workspace factory for Mastra's `AgentController` (or an `Agent`'s dynamic `workspace`): each
 * session maps to one workspace scope in `namespace`, opened once and wrapped in one memoised
 * `Workspace` over a {@link VfsFilesystem}. The controller calls its factory about ten times per
 * model step; every call after the first returns the same Workspace without touching the store.
 * A failed open is not cached, so the next call retries.
 *
 * ```ts
 * const workspace = vfsWorkspaceResolver({ store: postgresStore(pool), namespace: 'my-app', workspace: { skills: ['/skills'] } })
 * const controller = new AgentController({ id: 'app', modes, storage, workspace })
 * ```
 */
export function vfsWorkspaceResolver(options: VfsWorkspaceResolverOptions): VfsWorkspaceResolver {
  const { namespace } = options
  if (!options.registry && !options.store) throw new TypeError('vfsWorkspaceResolver needs { registry } or { store }')
  if (typeof namespace !== 'string' || namespace === '') throw new TypeError('vfsWorkspaceResolver needs a namespace')
  const maxCached = options.maxCached ?? 100
  if (!(maxCached >= 1))
    throw new TypeError(`vfsWorkspaceResolver: maxCached must be at least 1 (or Infinity), got ${String(options.maxCached)}`)
  const registry = options.registry ?? vfsRegistry({ store: options.store!, maxCached })
  const defaultScope = options.defaultScope ?? 'default'
  // Map order is recency: a resolve moves the scope to the end.
  const workspaces = new Map<string, Promise<Workspace>>()

  const scopeOf = (requestContext?: RequestContext): string => {
    const c = controllerOf(requestContext)
    const info: VfsSessionInfo = { resourceId: c?.resourceId, scope: c?.scope, sessionId: c?.session?.id, requestContext }
    if (options.scopeOf) return options.scopeOf(info)
    if (!info.resourceId) return defaultScope
    return info.scope ? `${info.resourceId}:${info.scope}` : info.resourceId
  }

  const open = async (scope: string): Promise<Workspace> => {
    const opened = await registry.open(namespace, scope)
    const vfs = options.view ? options.view(opened, scope) : opened
    const extra = typeof options.workspace === 'function' ? options.workspace({ vfs, scope }) : (options.workspace ?? {})
    const filesystem = new VfsFilesystem({ vfs, readOnly: options.readOnly })
    return new Workspace({ id: `agent-vfs:${namespace}:${scope}`, name: scope, ...extra, filesystem })
  }

  const forScope = (scope: string): Promise<Workspace> => {
    let ws = workspaces.get(scope)
    if (ws) {
      workspaces.delete(scope)
      workspaces.set(scope, ws)
      return ws
    }
    ws = open(scope)
    const mine = ws
    mine.catch(() => workspaces.get(scope) === mine && workspaces.delete(scope))
    workspaces.set(scope, ws)
    for (const oldest of workspaces.keys()) {
      if (workspaces.size <= maxCached) break
      // Flushed and released in the background; the registry makes a reopen wait for the flush.
      void evict(oldest).catch(() => undefined)
    }
    return ws
  }

  const evict = async (scope: string): Promise<void> => {
    const ws = workspaces.get(scope)
    workspaces.delete(scope)
    if (ws) await registry.evict(namespace, scope)
  }

  const resolver = ((args: { requestContext?: RequestContext } = {}) => forScope(scopeOf(args?.requestContext))) as VfsWorkspaceResolver
  resolver.scopeOf = scopeOf
  resolver.forScope = forScope
  resolver.cached = () => [...workspaces.keys()]
  resolver.evict = evict
  resolver.closeAll = async () => {
    await Promise.all([...workspaces.keys()].map(evict))
  }
  return resolver
}
