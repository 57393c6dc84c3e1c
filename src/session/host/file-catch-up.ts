import type { VersionedVfs } from 'agent-vfs'
import type { HostContext } from '../context.js'
import { eventsOf } from '../records/file-events.js'

/** Events read per page while looking back through the log for the last workspace version noticed. */
const PAGE = 500
/** How far back the log is searched; a session whose last notice is older gets none (never one doubled). */
const LOOK_BACK = 10_000

/**
 * Appends the `files-changed` events of commits whose notice was lost: a workspace commit is
 * durable before its event is appended (file-events.ts), so a host that dies between the two
 * leaves the change in the history and not in the log. Run when a host opens the session's
 * workspace (after a restart, an eviction, on another host), before any write of its own: every
 * commit of the history after the last version the log noticed (`files-changed`, a fork's
 * `session-forked` head, or the seed's `session-created`) becomes its events again. A host committing elsewhere at that
 * very moment may see its own notice repeated: a client applies a change by version (idempotent);
 * none is lost. Conservative: a log with no noticed version in reach gets nothing.
 */
export async function catchUpFileEvents(ctx: HostContext, sessionId: string, ws: VersionedVfs): Promise<number> {
  const noticed = await lastNoticedVersion(ctx, sessionId)
  // Not `ws.version`: a branch (a fork) knows its version only once it is loaded.
  if (noticed === undefined) return 0
  let appended = 0
  for (const entry of await ws.history({ after: noticed })) {
    for (const body of eventsOf(entry.version, entry.changes)) {
      await ctx.emit(sessionId, body)
      appended++
    }
  }
  return appended
}

/** The newest workspace version an event of the log carries, searching back at most {@link LOOK_BACK} events. */
async function lastNoticedVersion(ctx: HostContext, sessionId: string): Promise<number | undefined> {
  const last = await ctx.log(sessionId).lastSeq()
  for (let upTo = last; upTo > 0 && last - upTo < LOOK_BACK; upTo -= PAGE) {
    const after = Math.max(0, upTo - PAGE)
    const lines = await ctx.eventLines(sessionId, after, upTo - after)
    for (let i = lines.length - 1; i >= 0; i--) {
      const type = lines[i].type
      if (type !== 'files-changed' && type !== 'session-forked' && type !== 'session-created') continue
      const event = JSON.parse(lines[i].json) as { version?: unknown; head?: unknown }
      const version = typeof event.head === 'number' ? event.head : event.version
      if (typeof version === 'number') return version
      // A session created before creation carried its version: nothing to compare with.
      if (type === 'session-created') return undefined
    }
  }
  return undefined
}
