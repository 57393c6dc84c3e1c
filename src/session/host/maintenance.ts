import type { HostContext } from '../context.js'
import type { SessionDriver } from '../run/driver.js'
import { LOG_PATH, type LogHint } from '../records/event-log.js'
import type { GcOptions, GcReport, SessionHost } from '../host-api.js'
import type { HostParts } from './host-parts.js'
import { putJson, versionOf } from '../records/records.js'
import { segmentOf } from '../storage.js'
import { pruneRunArchives } from '../records/workspace.js'

/** The host's maintenance: recovery of acknowledged work, and garbage collection (deleting through `remove`). */
export function maintenanceMethods(parts: HostParts, remove: (sessionId: string) => Promise<void>): Pick<SessionHost, 'recover' | 'gc'> {
  return {
    recover: () => recoverSessions(parts.ctx, parts.driver),
    gc: (options = {}) => collectGarbage(parts.ctx, parts.driver, remove, options),
  }
}

/**
 * Recovery: every session in the work index (acknowledged work, or an execution running
 * somewhere) whose lease is free, expired or this host's, and whose entry another host did not
 * write within the last lease period (see `WorkEntry.host` in storage.ts), is kicked; the driver decides what is
 * left to do. Resolves to the sessions this host took on.
 */
async function recoverSessions(ctx: HostContext, driver: SessionDriver): Promise<string[]> {
  const { hostId, leaseMs, exclusive } = ctx.settings
  const taken: string[] = []
  for (const entry of await ctx.storage.workEntries()) {
    const { sessionId } = entry
    const meta = await ctx.meta(sessionId)
    // A request that raced a delete left an entry for a session that is gone.
    if (!meta) {
      await ctx.storage.dropWork(sessionId)
      continue
    }
    const lease = meta.lease
    const now = Date.now()
    const leased = lease !== undefined && lease.expiresAt > now && lease.holder !== hostId
    // Between its work entry and its lease the host that acknowledged a request holds neither: its
    // fresh entry stands for the lease it is about to take (it runs what it acknowledged).
    const claimed = entry.host !== undefined && entry.host !== hostId && entry.at + leaseMs > now
    if ((leased || claimed) && !exclusive) continue
    taken.push(sessionId)
    void driver.kick(sessionId)
  }
  return taken
}

/** Deletes closed sessions past their time (through `remove`), old event segments and old run_js archives. */
async function collectGarbage(
  ctx: HostContext,
  driver: SessionDriver,
  remove: (sessionId: string) => Promise<void>,
  options: GcOptions,
): Promise<GcReport> {
  const { closedOlderThan, keepEvents, keepRunArchives } = options
  const report: GcReport = { sessionsDeleted: [], segmentsDeleted: 0, archivesDeleted: 0 }
  for (const id of await ctx.storage.sessionIds()) {
    const meta = await ctx.meta(id)
    if (!meta) continue
    if (closedOlderThan !== undefined && meta.record.status === 'closed' && (meta.record.closedAt ?? 0) <= Date.now() - closedOlderThan) {
      await remove(id)
      report.sessionsDeleted.push(id)
      continue
    }
    if (keepEvents !== undefined) report.segmentsDeleted += await trimEvents(ctx, id, Math.max(0, keepEvents))
    if (keepRunArchives !== undefined && !driver.active.has(id))
      report.archivesDeleted += await pruneRunArchives(await ctx.workspaces.base(id), keepRunArchives)
  }
  return report
}

/** Deletes whole segments holding only events older than the last `keep`. */
async function trimEvents(ctx: HostContext, sessionId: string, keep: number): Promise<number> {
  const log = ctx.log(sessionId)
  const last = await log.lastSeq()
  const hint = await log.hint()
  const firstKept = last - keep + 1
  const keepSegment = firstKept <= 1 ? 0 : segmentOf(firstKept)
  if (keepSegment <= hint.first) return 0
  await ctx.storage.deleteSegments(sessionId, hint.first, keepSegment - 1)
  log.dropCache()
  await ctx.storage.updateMeta(sessionId, records => {
    const h = (records.get(LOG_PATH)?.value as LogHint | undefined) ?? { segment: 0, first: 0 }
    return {
      ops: [putJson(LOG_PATH, { segment: Math.max(h.segment, keepSegment), first: keepSegment }, versionOf(records, LOG_PATH))],
      value: undefined,
    }
  })
  return keepSegment - hint.first
}
