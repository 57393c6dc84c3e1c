import type { Plan, SessionEvent } from '../api/types.js'

/** A tool call and, once it arrives, its result: one card in the timeline. */
export interface ToolItem {
  kind: 'tool'
  seq: number
  executionId: string
  toolCallId: string
  toolName: string
  input: unknown
  result?: Extract<SessionEvent, { type: 'tool-result' }>
  /** The pending action this call waits on: an approval (its program is shown in the prompt, not here) or a question. */
  waitingFor?: string
  /** What it waits for: a person's approval, or an answer to a question (asked by the call, or by a program inside it). */
  waitingOn?: 'approval' | 'question'
}

/** Any other event, shown as it is. */
export interface EventItem {
  kind: 'event'
  seq: number
  event: SessionEvent
}

export type TimelineItem = ToolItem | EventItem

/** What the session view derives from the event log. */
export interface SessionModel {
  /** Events by seq, each once. */
  seen: Set<number>
  items: TimelineItem[]
  /** The newest plan of the newest execution. */
  plan?: Plan
  lastSeq: number
  /** Calls whose result has not arrived, by `executionId:toolCallId` (ids repeat across windows). */
  open: Map<string, ToolItem>
}

export const emptyModel = (): SessionModel => ({ seen: new Set(), items: [], lastSeq: 0, open: new Map() })

// Events that say nothing a person needs beyond what the items around them say.
const QUIET = new Set(['heartbeat'])

/**
 * Adds events to the model (a new object; the arrays are copied once per batch). Events already
 * seen are ignored, so a replayed batch changes nothing. A tool result joins its call's card.
 */
export function addEvents(model: SessionModel, events: SessionEvent[]): SessionModel {
  const next: SessionModel = { ...model, items: model.items.slice(), seen: new Set(model.seen), open: new Map(model.open) }
  for (const e of events) {
    if (next.seen.has(e.seq) || QUIET.has(e.type)) continue
    next.seen.add(e.seq)
    next.lastSeq = Math.max(next.lastSeq, e.seq)
    if (e.type === 'tool-call') {
      const item: ToolItem = {
        kind: 'tool',
        seq: e.seq,
        executionId: e.executionId,
        toolCallId: e.toolCallId,
        toolName: e.toolName,
        input: e.input,
      }
      next.open.set(`${e.executionId}:${e.toolCallId}`, item)
      next.items.push(item)
      continue
    }
    if (e.type === 'tool-result') {
      const key = `${e.executionId}:${e.toolCallId}`
      const call = next.open.get(key)
      if (call) {
        replaceItem(next, call, { ...call, waitingFor: undefined, waitingOn: undefined, result: e })
        next.open.delete(key)
        continue
      }
    }
    if (e.type === 'approval-required') {
      // The call asks before it runs: its card waits (the last open call of that tool in that execution).
      const call = [...next.open.values()].reverse().find(c => c.executionId === e.executionId && c.toolName === e.toolName)
      if (call) replaceItem(next, call, { ...call, waitingFor: e.pendingId, waitingOn: 'approval' })
    }
    if (e.type === 'question') {
      // The call that asks (ask_user, or a run_js program parked on a question) is the execution's last open one.
      const call = [...next.open.values()].reverse().find(c => c.executionId === e.executionId)
      if (call) replaceItem(next, call, { ...call, waitingFor: e.pendingId, waitingOn: 'question' })
    }
    if (e.type === 'pending-answered') {
      const call = [...next.open.values()].find(c => c.waitingFor === e.pendingId)
      if (call) replaceItem(next, call, { ...call, waitingFor: undefined, waitingOn: undefined })
    }
    if (e.type === 'plan-updated' && (!next.plan || e.plan.executionId >= next.plan.executionId)) next.plan = e.plan
    next.items.push({ kind: 'event', seq: e.seq, event: e })
  }
  return next
}

/** Puts `item` in the place of `call`, in the items and among the open calls. */
function replaceItem(model: SessionModel, call: ToolItem, item: ToolItem): void {
  model.items[model.items.indexOf(call)] = item
  model.open.set(`${call.executionId}:${call.toolCallId}`, item)
}

/** Counts of a plan's steps. */
export function planProgress(plan: Plan | undefined): { done: number; total: number } {
  const steps = plan?.steps ?? []
  return { done: steps.filter(s => s.status === 'completed').length, total: steps.length }
}
