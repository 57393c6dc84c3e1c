import { listExecutionIds, readEvents } from 'agent-vfs/agent'
import type { RunVfs } from 'agent-vfs'
import type { HostContext } from '../context.js'

/** How far back the session log is searched for the newest execution's last logged event. */
const TAIL = 200

/**
 * Copies into the session log the events the newest execution journaled in its workspace but
 * whose host died before appending them to the log (the journal commits first, the log after).
 * Run by the lease holder before it continues the session, so a crash between the two writes
 * loses no event (an `execution-end` of a run aborted just before the crash, say). Conservative:
 * when the log's tail holds no event of the execution, nothing is copied (no event doubled).
 */
export async function catchUpLog(ctx: HostContext, sessionId: string, ws: RunVfs): Promise<number> {
  const ids = await listExecutionIds(ws)
  const executionId = ids[ids.length - 1]
  if (!executionId) return 0
  const journal = await readEvents(ws, executionId)
  if (journal.length === 0) return 0
  const lastSeq = await ctx.log(sessionId).lastSeq()
  const lines = await ctx.eventLines(sessionId, Math.max(0, lastSeq - TAIL), TAIL)
  let logged = 0
  for (const line of lines) {
    const e = JSON.parse(line.json) as { executionId?: string; executionSeq?: number }
    if (e.executionId === executionId && typeof e.executionSeq === 'number' && e.executionSeq > 0) logged = Math.max(logged, e.executionSeq)
  }
  if (logged === 0) return 0
  const missing = journal.filter(e => e.seq > logged)
  for (const e of missing) {
    const { seq, at: _at, ...body } = e
    await ctx.emit(sessionId, { ...(body as never as object), executionSeq: seq } as never)
  }
  return missing.length
}
