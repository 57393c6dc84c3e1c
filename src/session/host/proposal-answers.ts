import type { RunVfs } from 'agent-vfs'
import { listExecutionIds, readExecution, type PendingAnswer } from 'agent-vfs/agent'
import { SessionError } from '../errors.js'
import { refuse, type HostParts } from './host-parts.js'
import { idOf, type SessionRef } from '../session-ref.js'
import {
  applyProposal,
  PROPOSAL_ID,
  proposalPending,
  readProposal,
  writeProposal,
  type ProposalOutcome,
  type SessionPending,
} from '../run/proposals.js'
import { admit } from '../state.js'
import { storedBytes } from '../records/usage.js'

/** The newest execution's proposal, when it has ended and waits for review (see proposals.ts). */
export async function pendingProposal(parts: HostParts, sessionId: string, ws: RunVfs): Promise<SessionPending | undefined> {
  const ids = await listExecutionIds(ws)
  const last = ids.length ? await readExecution(ws, ids[ids.length - 1]) : undefined
  if (!last || (last.status !== 'completed' && last.status !== 'failed')) return undefined
  const record = await readProposal(ws, last.id)
  if (!record || record.answer || record.outcome) return undefined
  return proposalPending(await parts.ctx.workspaces.base(sessionId), record)
}

/**
 * Answers a proposal: the decision is stored first (durable intent, with its work entry), then
 * carried out here (land the branch as one commit, or discard it); if this host dies in between,
 * whichever host decides next finishes it. Resolves to the outcome: `conflicts` lists what changed
 * in the workspace since the branch was made (nothing was written; the branch stays).
 */
export async function answerProposal(
  parts: HostParts,
  ref: SessionRef,
  pendingId: string,
  answer: PendingAnswer,
): Promise<ProposalOutcome> {
  const { ctx, driver } = parts
  const session = await parts.requireOpen(ref)
  const sessionId = idOf(ref)
  const executionId = PROPOSAL_ID.exec(pendingId)![1]
  const { ws } = await parts.open(sessionId)
  const ids = await listExecutionIds(ws)
  const last = ids.length ? await readExecution(ws, ids[ids.length - 1]) : undefined
  const ended = last?.id === executionId && (last.status === 'completed' || last.status === 'failed')
  const record = ended ? await readProposal(ws, executionId) : undefined
  const open = record && !record.outcome ? { pending: { kind: 'approval' as const, answered: record.answer !== undefined } } : {}
  refuse(admit('answer', { status: session.status, ...open }), `Nothing is pending with id ${JSON.stringify(pendingId)}`)
  const decision = 'decision' in answer ? answer.decision : undefined
  if (decision !== 'approve' && decision !== 'deny')
    throw new SessionError('invalid', 'A proposal is approved or denied: { decision: "approve" | "deny" }.')
  const base = await ctx.workspaces.base(sessionId)
  await writeProposal(base, { ...record!, answer: decision, answeredAt: Date.now() })
  await ctx.storage.markWork({ sessionId, owner: session.owner, reason: 'answer' })
  const outcome = await applyProposal(base, executionId)
  await ctx.fileEvents.settled(sessionId)
  if (outcome.status === 'landed') await ctx.recordBytes(session.owner, sessionId, storedBytes(base.usage())).catch(() => undefined)
  await ctx.emit(sessionId, { type: 'pending-answered', pendingId, answer: { decision, outcome } })
  void driver.kick(sessionId)
  return outcome
}
