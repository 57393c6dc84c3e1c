import type { ObservedEvent } from '../events.js'

/** What a person sent (a task, a follow-up, a steer). */
export interface UserTurn {
  kind: 'user'
  n: number
  text: string
  mode: 'task' | 'follow-up' | 'steer'
  at: number
}
/**
 * What the model wrote (`text`) or reasoned (`reasoning`). `live` while it streams (from `delta` events
 * of `observe({ live: true })`); the stored event with the same `streamId` then replaces it.
 */
export interface ModelTurn {
  kind: 'text' | 'reasoning'
  executionId: string
  text: string
  streamId?: string
  live: boolean
}
/** A tool call and, once it came, its result. */
export interface ToolTurn {
  kind: 'tool'
  executionId: string
  toolCallId: string
  toolName: string
  input: unknown
  result?: { ok: boolean; output?: unknown; error?: { code: string; message: string } }
}
/** One item of the conversation: a user turn, a model turn (text or reasoning), or a tool call. */
export type ConversationItem = UserTurn | ModelTurn | ToolTurn
/** The conversation in order: what people sent, what the model wrote, the tools it called. Immutable. */
export type Conversation = readonly ConversationItem[]

/** The conversation after `event` (the same array when the event adds nothing to it). */
export function applyConversationEvent(items: Conversation, event: ObservedEvent): Conversation {
  switch (event.type) {
    case 'message':
      return [...items, { kind: 'user', n: event.n, text: event.text, mode: event.mode, at: event.at }]
    case 'delta':
      return applyDelta(items, event)
    case 'text':
    case 'reasoning': {
      const turn: ModelTurn = {
        kind: event.type,
        executionId: event.executionId,
        text: event.text,
        live: false,
        ...(event.streamId ? { streamId: event.streamId } : {}),
      }
      const at = event.streamId ? items.findIndex(i => i.kind === event.type && i.streamId === event.streamId) : -1
      return at < 0 ? [...items, turn] : items.map((item, i) => (i === at ? turn : item))
    }
    case 'tool-call':
      return [
        ...items,
        { kind: 'tool', executionId: event.executionId, toolCallId: event.toolCallId, toolName: event.toolName, input: event.input },
      ]
    case 'tool-result': {
      // Call ids are unique within one model call only (a later window may use `call_1` again): the latest open one.
      let at = items.length - 1
      for (; at >= 0; at--) {
        const i = items[at]!
        if (i.kind === 'tool' && i.toolCallId === event.toolCallId && i.executionId === event.executionId && !i.result) break
      }
      if (at < 0) return items
      const result = {
        ok: event.ok,
        ...(event.output !== undefined ? { output: event.output } : {}),
        ...(event.error ? { error: event.error } : {}),
      }
      return items.map((item, i) => (i === at ? { ...(item as ToolTurn), result } : item))
    }
    default:
      return items
  }
}

/** A live delta: text = text.slice(0, at) + delta of its stream's turn (a new turn at `at: 0`); a discarded stream goes. */
function applyDelta(items: Conversation, d: Extract<ObservedEvent, { type: 'delta' }>): Conversation {
  const at = items.findIndex(i => (i.kind === 'text' || i.kind === 'reasoning') && i.streamId === d.streamId)
  const turn = at < 0 ? undefined : (items[at] as ModelTurn)
  // A stored turn is final: deltas replayed after a reconnect do not reopen it.
  if (turn && !turn.live) return items
  if (d.discarded) return at < 0 ? items : items.filter((_, i) => i !== at)
  const text = (turn?.text ?? '').slice(0, d.at) + d.delta
  const next: ModelTurn = { kind: d.kind, executionId: d.executionId, text, streamId: d.streamId, live: true }
  return at < 0 ? [...items, next] : items.map((item, i) => (i === at ? next : item))
}
