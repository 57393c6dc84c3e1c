import { listExecutionIds, listPending, readExecution, readPending, type PendingAction, type PendingSummary } from 'agent-vfs/agent'
import type { Vfs } from 'agent-vfs'

/**
 * The one pending action a host will carry out an answer to: the newest execution's, while that
 * execution is suspended on it (the rule `readFacts` decides by). Any other stored pending action
 * is dead — its execution was interrupted (a fork taken while it waited), ended or superseded — and
 * is neither listed nor answered: an answer to it would be acknowledged and never acted on.
 */
export async function livePendingId(ws: Vfs): Promise<string | undefined> {
  const ids = await listExecutionIds(ws)
  const last = ids.length ? await readExecution(ws, ids[ids.length - 1]) : undefined
  return last?.status === 'suspended' ? last.pendingId : undefined
}

/** The pending actions a person may answer (at most the live one), as `GET …/pending` lists them. */
export async function listLivePending(ws: Vfs): Promise<PendingSummary[]> {
  const live = await livePendingId(ws)
  return live === undefined ? [] : (await listPending(ws)).filter(p => p.id === live)
}

/** The pending action `id` (as a request names it) when it is the live one; undefined for a dead, unknown or malformed one. */
export async function readLivePending(ws: Vfs, id: unknown): Promise<PendingAction | undefined> {
  if (typeof id !== 'string' || !/^e\d{4,}-p\d+$/.test(id)) return undefined
  return (await livePendingId(ws)) === id ? readPending(ws, id) : undefined
}
