import { listExecutionIds, readExecution, readPending } from 'agent-vfs/agent'
import type { RunVfs } from 'agent-vfs'
import type { HostContext, SessionMeta } from '../context.js'
import { readProposal } from './proposals.js'
import type { SessionFacts } from '../state.js'

/**
 * Reads what the state machine decides from (see state.ts): the meta records, the newest
 * execution and its pending action, the messages. `ws` is the session's workspace, refreshed by
 * the caller when another process may have written. Undefined when there is no session.
 */
export async function readFacts(ctx: HostContext, sessionId: string, ws: RunVfs, known?: SessionMeta): Promise<SessionFacts | undefined> {
  const meta = known ?? (await ctx.meta(sessionId))
  if (!meta) return undefined
  const ids = await listExecutionIds(ws)
  const lastId = ids[ids.length - 1]
  const last = lastId ? await readExecution(ws, lastId) : undefined
  const pending = last?.status === 'suspended' && last.pendingId ? await readPending(ws, last.pendingId) : undefined
  const ended = last?.status === 'completed' || last?.status === 'failed'
  const proposal = ended ? await readProposal(ws, last.id) : undefined
  return {
    status: meta.record.status,
    deleting: meta.deleting !== undefined,
    ...(last ? { last: { id: last.id, status: last.status } } : {}),
    ...(pending ? { pending: { kind: pending.kind, answered: pending.answer !== undefined } } : {}),
    ...(proposal && !proposal.outcome ? { proposal: { answered: proposal.answer !== undefined } } : {}),
    messages: await ctx.box(sessionId).list(),
    ...(meta.abort ? { abort: { executionId: meta.abort.executionId } } : {}),
    ...(meta.resume ? { resume: { executionId: meta.resume.executionId } } : {}),
  }
}
