import type { GcResult, Retention } from 'agent-vfs'
import type { HostContext } from '../context.js'
import { storedBytes } from '../records/usage.js'

/**
 * The history retention a host applies by itself (docs/history.md, "Retention and quota"):
 * `npm run serve` runs a pass every lease period, the Worker's session object in its alarm.
 */
export interface HistoryRetentionOptions {
  /** Versions of the last this many days stay rebuildable (undo, diff, revert, fork), unless `maxBytes` needs the room. Default 7. */
  keepDays?: number
  /**
   * At most this many bytes of history per session; the oldest versions go first. Default: half
   * the owner's `maxBytes` (none when the host has no byte quota).
   */
  maxBytes?: number
  /** Commits dropped per session per pass (one atomic prune each). Default 200. */
  maxCommits?: number
  /** Sessions looked at per pass, taken in turn across passes. Default 20. */
  sessions?: number
  /** Only these sessions (the Worker's object collects its own). */
  only?: readonly string[]
}

/** What one pass did. */
export interface HistoryRetentionReport {
  sessions: string[]
  removedChanges: number
  removedBlobs: number
  /** True when a session had more to drop than one pass allows, or sessions were left for the next pass. */
  more: boolean
}

/** The defaults both hosts ship. */
export const DEFAULT_HISTORY_RETENTION = Object.freeze({ keepDays: 7, maxCommits: 200, sessions: 20 })

/**
 * One bounded retention pass: at most `sessions` sessions (after the last one the previous pass
 * reached), each collected by at most `maxCommits` commits, so one owner's long history cannot
 * stall the others. A session another live host leases is left to that host. The owner's bytes
 * are updated after each collection, which gives the room back to the owner's quota.
 */
export function historyRetention(ctx: HostContext): (options?: HistoryRetentionOptions) => Promise<HistoryRetentionReport> {
  let after = ''
  return async (options = {}) => {
    const report: HistoryRetentionReport = { sessions: [], removedChanges: 0, removedBlobs: 0, more: false }
    const policy = retentionOf(ctx, options)
    const perPass = Math.max(1, options.sessions ?? DEFAULT_HISTORY_RETENTION.sessions)
    const all = options.only ? [...options.only] : (await ctx.storage.sessionIds()).sort()
    const start = all.findIndex(id => id > after)
    const turn = start < 0 ? all : [...all.slice(start), ...all.slice(0, start)]
    for (const id of turn.slice(0, perPass)) {
      after = id
      const meta = await ctx.meta(id)
      if (!meta) continue
      const lease = meta.lease
      if (!ctx.settings.exclusive && lease && lease.holder !== ctx.settings.hostId && lease.expiresAt > Date.now()) continue
      // A workspace opened only for this is closed again: a pass must not keep every session in memory.
      const wasOpen = ctx.workspaces.isOpen(id)
      let result: GcResult
      let stored: number
      try {
        const base = await ctx.workspaces.base(id)
        result = await base.gc(policy)
        stored = storedBytes(base.usage())
      } catch {
        continue // a fork whose original is gone, a session deleted meanwhile: the next pass looks again
      } finally {
        if (!wasOpen) await ctx.workspaces.evict(id)
      }
      report.sessions.push(id)
      report.removedChanges += result.removedChanges
      report.removedBlobs += result.removedBlobs
      report.more ||= result.more
      if (result.removedChanges > 0) await ctx.recordBytes(meta.record.owner, id, stored).catch(() => undefined)
    }
    report.more ||= turn.length > perPass
    return report
  }
}

function retentionOf(ctx: HostContext, options: HistoryRetentionOptions): Retention {
  const quota = ctx.settings.quota.maxBytes
  const maxBytes = options.maxBytes ?? (quota !== undefined ? Math.floor(quota / 2) : undefined)
  return {
    keepDays: options.keepDays ?? DEFAULT_HISTORY_RETENTION.keepDays,
    maxCommits: options.maxCommits ?? DEFAULT_HISTORY_RETENTION.maxCommits,
    ...(maxBytes !== undefined ? { maxBytes } : {}),
  }
}
