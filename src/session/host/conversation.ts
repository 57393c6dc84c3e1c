import { isVfsError } from 'agent-vfs'
import { answerPending, listExecutionIds, readExecution } from 'agent-vfs/agent'
import { SessionError } from '../errors.js'
import type { SessionHost } from '../host-api.js'
import { refuse, type HostParts } from './host-parts.js'
import { idOf } from '../session-ref.js'
import { admit } from '../state.js'
import type { SessionMessage } from '../types.js'
import { answerProposal, pendingProposal } from './proposal-answers.js'
import { PROPOSAL_ID } from '../run/proposals.js'
import { listLivePending, readLivePending } from '../run/live-pending.js'

const MAX_MESSAGE = 100_000

/**
 * The host's conversation with a session: messages, pending actions, abort and resume. Every
 * acknowledged request is durable intent: stored, then its work entry, then the answer (see
 * docs/recovery.md), so whichever host runs the session next acts on it.
 */
export function conversationMethods(parts: HostParts): Pick<SessionHost, 'send' | 'messages' | 'pending' | 'answer' | 'abort' | 'resume'> {
  const { ctx, driver } = parts
  return {
    async send(session, { text, steer }) {
      const meta = await parts.loadOpen(session)
      const { record } = meta
      const sessionId = idOf(session)
      if (typeof text !== 'string' || text.trim() === '' || text.length > MAX_MESSAGE)
        throw new SessionError('invalid', `a message needs text of 1 to ${MAX_MESSAGE} characters`)
      // A message to an idle session starts an execution: it takes one of the owner's running slots
      // first, atomically in the index (released when the session stops running), or is refused.
      const { index } = ctx
      const maxRunning = ctx.settings.quota.maxRunningExecutions
      const reserve = maxRunning !== undefined && record.status === 'idle' && index.setRunning
      if (reserve) await index.setRunning!(record.owner, sessionId, true, maxRunning)
      let message: SessionMessage
      try {
        message = await ctx.box(sessionId).add(text, steer ? 'steer' : 'follow-up')
      } catch (error) {
        if (reserve) await index.setRunning!(record.owner, sessionId, false).catch(() => undefined)
        throw error
      }
      // Durable intent: the message, then its work entry, then the acknowledgement (see docs/recovery.md).
      await ctx.storage.markWork({ sessionId, owner: record.owner, reason: 'message' })
      await ctx.emit(sessionId, { type: 'message', n: message.n, text, mode: message.mode })
      // The status shows the acknowledged work from now on (running on the execution it starts), not once a run begins.
      // Settled on the meta this request read first (written only if the record is still as read).
      const settled = await driver.settleStatus(sessionId, { touch: true, refresh: true, meta })
      void driver.kick(sessionId)
      const { status, executionId } = settled ?? (await parts.load(sessionId)).record
      return { ...message, session: { status, ...(executionId !== undefined ? { executionId } : {}) } }
    },

    async messages(session) {
      await parts.load(session)
      return ctx.box(idOf(session)).list()
    },

    async pending(session) {
      const { ws } = await parts.open(session)
      const sessionId = idOf(session)
      const proposal = await pendingProposal(parts, sessionId, ws)
      return [...(await listLivePending(ws)), ...(proposal ? [proposal] : [])]
    },

    async answer(session, pendingId, answer) {
      if (typeof pendingId === 'string' && PROPOSAL_ID.test(pendingId)) return answerProposal(parts, session, pendingId, answer)
      const record = await parts.requireOpen(session)
      const sessionId = idOf(session)
      const { ws } = await parts.open(sessionId)
      const pending = await readLivePending(ws, pendingId)
      const open = pending ? { pending: { kind: pending.kind, answered: pending.answer !== undefined } } : {}
      const facts = { status: record.status, ...open }
      refuse(admit('answer', facts), `Nothing is pending with id ${JSON.stringify(String(pendingId).slice(0, 64))}`)
      try {
        await answerPending(ws, pendingId, answer)
      } catch (error) {
        if (isVfsError(error)) throw error
        throw new SessionError('invalid', (error as Error).message)
      }
      await ctx.storage.markWork({ sessionId, owner: record.owner, reason: 'answer' })
      await ctx.emit(sessionId, { type: 'pending-answered', pendingId, answer })
      await driver.settleStatus(sessionId, { touch: true, refresh: true })
      void driver.kick(sessionId)
    },

    async abort(session) {
      const meta = await parts.load(session)
      const sessionId = idOf(session)
      const executionId = meta.record.executionId
      const { status } = meta.record
      if (status === 'waiting_approval' || status === 'waiting_input') {
        const what = status === 'waiting_approval' ? 'approval' : 'an answer'
        throw new SessionError(
          'not-running',
          `Session ${sessionId} waits for ${what} (GET /sessions/${sessionId}/pending), so nothing runs to abort; answer it instead (deny refuses an approval)`,
        )
      }
      refuse(
        admit('abort', { status, ...(executionId ? { executionId } : {}) }),
        `Session ${sessionId} has no running execution (it is ${status})`,
      )
      await requestAbort(parts, sessionId, executionId!)
    },

    async resume(session) {
      const record = await parts.requireOpen(session)
      const sessionId = idOf(session)
      const { ws } = await parts.open(sessionId)
      const ids = await listExecutionIds(ws)
      const last = ids.length ? await readExecution(ws, ids[ids.length - 1]) : undefined
      refuse(
        admit('resume', { status: record.status, ...(last ? { last: { id: last.id, status: last.status } } : {}) }),
        `Session ${sessionId} has no interrupted execution to resume`,
      )
      await ctx.storage.putRequest(sessionId, 'resume', last!.id)
      await ctx.storage.markWork({ sessionId, owner: record.owner, reason: 'resume', executionId: last!.id })
      await driver.settleStatus(sessionId, { touch: true, refresh: true })
      void driver.kick(sessionId)
    },
  }
}

/** Stores an abort of `executionId` and its work entry, logs it, and stops the run if it is this host's. */
export async function requestAbort(parts: HostParts, sessionId: string, executionId: string): Promise<void> {
  const { ctx, driver } = parts
  await ctx.storage.putRequest(sessionId, 'abort', executionId)
  const meta = await ctx.meta(sessionId)
  if (meta) await ctx.storage.markWork({ sessionId, owner: meta.record.owner, reason: 'abort', executionId })
  await ctx.emit(sessionId, { type: 'abort-requested', executionId })
  await driver.checkAbort(sessionId)
}
