import { changeMethods } from './host/changes.js'
import { HostContext } from './context.js'
import { catchUpFileEvents } from './host/file-catch-up.js'
import { forkSession } from './fork/fork.js'
import { remoteForks } from './fork/fork-remote.js'
import { conversationMethods } from './host/conversation.js'
import { SessionDriver } from './run/driver.js'
import { fileMethods, uploadPath } from './host/files.js'
import type { SessionHost, SessionHostOptions } from './host-api.js'
import { HostParts } from './host/host-parts.js'
import { lifecycleMethods } from './host/lifecycle.js'
import { maintenanceMethods } from './host/maintenance.js'
import { historyRetention } from './host/history-retention.js'
import { storeOwnerIndex } from './records/owner-index.js'
import { readingMethods } from './host/reading.js'
import { combineSignals, localSignals } from './records/signals.js'
import { SEGMENT_EVENTS } from './storage.js'
import { checkHostBudgets, usageMethods } from './host/usage-methods.js'

export type { GcOptions, GcReport, SessionHost, SessionHostOptions, UploadFile } from './host-api.js'

const DEFAULT_NAMESPACE = 'agent-vfs-sessions'

/**
 * Creates a session host over any workspace store. Isomorphic: Web APIs only, so the same host
 * runs in Node, a browser tab or worker, and workerd. Several hosts may share one store (two Node
 * servers on one Postgres, two tabs on one IndexedDB): leases decide which one runs a session's
 * execution, the event log keeps one sequence, and an abort or answer given to any host reaches
 * the execution wherever it runs.
 *
 * The host only assembles its parts, one module per job: lifecycle.ts, conversation.ts,
 * reading.ts, files.ts, maintenance.ts; the driver (driver.ts) carries out what state.ts decides.
 */
export function createSessionHost(options: SessionHostOptions): SessionHost {
  if (!options?.store || typeof options.store.commit !== 'function')
    throw new TypeError('createSessionHost needs { store }: memoryStore(), postgresStore(...), …')
  if (!options.agents || Object.keys(options.agents).length === 0)
    throw new TypeError('createSessionHost needs { agents }: at least one agent profile by name')
  const ctx: HostContext = new HostContext(
    {
      store: options.store,
      namespace: options.namespace ?? DEFAULT_NAMESPACE,
      hostId: options.hostId ?? `h-${crypto.randomUUID()}`,
      agents: options.agents,
      leaseMs: options.leaseMs ?? 30_000,
      pollMs: options.pollMs ?? 1000,
      heartbeatMs: options.heartbeatMs ?? 15_000,
      quota: options.quota ?? {},
      budgets: checkHostBudgets(options.budgets),
      exclusive: options.exclusive ?? false,
      ...(options.forkSource ? { forkSource: options.forkSource } : {}),
    },
    combineSignals(localSignals(), options.signals),
    { catchUp: (sessionId, base) => catchUpFileEvents(ctx, sessionId, base) },
  )
  ctx.index =
    options.ownerIndex ?? storeOwnerIndex(ctx.store, ctx.namespace, ids => Promise.all(ids.map(async id => (await ctx.meta(id))?.record)))
  const driver = new SessionDriver(ctx)
  const parts = new HostParts(ctx, driver)
  const lifecycle = lifecycleMethods(parts)
  return {
    hostId: ctx.settings.hostId,
    ...lifecycle,
    ...conversationMethods(parts),
    ...readingMethods(parts, options),
    ...fileMethods(parts),
    ...changeMethods(parts),
    fork: (sessionId, at, forkOptions) => forkSession(parts, sessionId, at, forkOptions),
    remoteForks: remoteForks(parts),
    ...usageMethods(parts),
    ...maintenanceMethods(parts, id => lifecycle.delete(id)),
    collectHistory: historyRetention(ctx),
    settled: sessionId => driver.settled(sessionId),
    async stop() {
      driver.stop()
      await ctx.signals.close?.()
    },
  }
}

export { uploadPath }
export { SEGMENT_EVENTS }
