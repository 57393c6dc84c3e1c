import type { EventOf, ObservedEvent } from '../events.js'

/** A tool call that waits for a person's decision (`api.answerPending` with `{ decision }`). */
export type PendingApproval = Omit<EventOf<'approval-required'>, 'type' | 'executionSeq'> & { kind: 'approval' }
/** A question that waits for a person's answer (`api.answerPending` with `{ answer }`). */
export type PendingQuestion = Omit<EventOf<'question'>, 'type' | 'executionSeq'> & { kind: 'question' }
/** What waits for a person, by pending id. */
export type PendingItem = PendingApproval | PendingQuestion
/** The session's open approvals and questions by id, kept from events. Immutable. */
export type PendingState = ReadonlyMap<string, PendingItem>

/**
 * The open approvals and questions after `event`. One opens with `approval-required` or `question`
 * and closes when it is answered (`pending-answered`), or when its execution moves on without it (it
 * starts again or ends other than suspended: the server no longer offers it). A proposal
 * (`…-proposal`, made when an execution ends) stays until answered.
 */
export function applyPendingEvent(state: PendingState, event: ObservedEvent): PendingState {
  if (event.type === 'approval-required' || event.type === 'question') {
    const { type: _type, executionSeq: _n, ...rest } = event
    const item = (event.type === 'question' ? { ...rest, kind: 'question' } : { ...rest, kind: 'approval' }) as PendingItem
    return new Map(state).set(event.pendingId, item)
  }
  if (event.type === 'pending-answered') return without(state, p => p.pendingId === event.pendingId)
  const movedOn = (event.type === 'execution-end' && event.status !== 'suspended') || event.type === 'execution-start'
  if (movedOn) return without(state, p => p.executionId === event.executionId && !p.pendingId.endsWith('-proposal'))
  return state
}

function without(state: PendingState, drop: (p: PendingItem) => boolean): PendingState {
  if (![...state.values()].some(drop)) return state
  return new Map([...state].filter(([, p]) => !drop(p)))
}
