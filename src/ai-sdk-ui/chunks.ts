import type { ObservedEvent } from 'agent-vfs/client'
import type { UIMessageChunk } from 'ai'

/** The tool a session's agent asks a person a question with: its part is answered with `addToolOutput`. */
export const QUESTION_TOOL = 'ask_user'

type ToolCall = Extract<ObservedEvent, { type: 'tool-call' }>
interface TextPart {
  emitted: string
  open: boolean
  kind: 'text' | 'reasoning'
}
/** A tool part the UI holds from an earlier stream whose result this one brings (the call an answer resumed). */
export interface CarriedPart {
  toolName: string
  partId: string
}

/**
 * Turns one reply's session events into the AI SDK's UI message chunks, in order: live text as
 * `text-delta`s (the stored `text` completes it), tool calls and results as dynamic tool parts, an
 * approval as `tool-approval-request` on its tool's part (`approvalId` is the pending id), a question
 * as the `ask_user` part itself, whose `toolCallId` is the pending id (answered with `addToolOutput`).
 * Stateful: one mapper per stream.
 */
export class ChunkMapper {
  /** Text parts by stream id: what was emitted of each (deltas only append; a rewrite is left as sent). */
  private readonly texts = new Map<string, TextPart>()
  /** `executionId:toolCallId` → the part's id (model call ids repeat across windows: the latest open one wins). */
  private readonly parts = new Map<string, string>()
  /** Open parts by execution, latest last: where an approval belongs. */
  private readonly open: Array<{ executionId: string; toolName: string; partId: string }> = []
  /** An `ask_user` call held until its `question` event names the pending id. */
  private heldQuestion: ToolCall | undefined

  /** `carried`: the parts of calls made before this stream whose results it brings (see {@link CarriedPart}). */
  constructor(private readonly carried: CarriedPart[] = []) {}

  map(event: ObservedEvent): UIMessageChunk[] {
    const out: UIMessageChunk[] = []
    if (this.heldQuestion && event.type !== 'question') out.push(...this.flushHeld())
    switch (event.type) {
      case 'delta':
        out.push(...this.delta(event))
        break
      case 'text':
      case 'reasoning':
        out.push(...this.stored(event))
        break
      case 'tool-call':
        if (event.toolName === QUESTION_TOOL) this.heldQuestion = event
        else out.push(this.toolCall(event, `${event.executionId}.${event.seq}`))
        break
      case 'question':
        if (this.heldQuestion) out.push(this.toolCall(this.heldQuestion, event.pendingId, { pendingId: event.pendingId }))
        this.heldQuestion = undefined
        break
      case 'approval-required': {
        const part = [...this.open].reverse().find(p => p.executionId === event.executionId && p.toolName === event.toolName)
        if (part) out.push({ type: 'tool-approval-request', approvalId: event.pendingId, toolCallId: part.partId, reason: event.reason })
        break
      }
      case 'tool-result':
        out.push(...this.toolResult(event))
        break
      case 'execution-end':
        if (event.status === 'failed' && event.error) out.push({ type: 'error', errorText: event.error.message })
        break
    }
    return out
  }

  /** What must close before the reply ends: open text parts, a held question call. */
  end(): UIMessageChunk[] {
    const out = this.flushHeld()
    for (const [id, text] of this.texts) if (text.open) out.push(this.closeText(id, text))
    return out
  }

  private flushHeld(): UIMessageChunk[] {
    const held = this.heldQuestion
    this.heldQuestion = undefined
    return held ? [this.toolCall(held, `${held.executionId}.${held.seq}`)] : []
  }

  private delta(d: Extract<ObservedEvent, { type: 'delta' }>): UIMessageChunk[] {
    const known = this.texts.get(d.streamId)
    if (d.discarded || (known && !known.open)) return []
    const out: UIMessageChunk[] = []
    const text: TextPart = known ?? { emitted: '', open: true, kind: d.kind === 'reasoning' ? 'reasoning' : 'text' }
    if (!known) {
      this.texts.set(d.streamId, text)
      out.push({ type: d.kind === 'reasoning' ? 'reasoning-start' : 'text-start', id: d.streamId })
    }
    // A delta that rewrites what was sent (a retried call) cannot be expressed as an append: the stored text settles it.
    if (d.at !== text.emitted.length) return out
    text.emitted += d.delta
    out.push({ type: d.kind === 'reasoning' ? 'reasoning-delta' : 'text-delta', id: d.streamId, delta: d.delta })
    return out
  }

  private stored(e: Extract<ObservedEvent, { type: 'text' | 'reasoning' }>): UIMessageChunk[] {
    const id = e.streamId ?? `${e.executionId}.${e.seq}`
    const known = this.texts.get(id)
    if (known && !known.open) return []
    const text: TextPart = known ?? { emitted: '', open: true, kind: e.type }
    const out: UIMessageChunk[] = known ? [] : [{ type: e.type === 'reasoning' ? 'reasoning-start' : 'text-start', id }]
    this.texts.set(id, text)
    if (e.text.startsWith(text.emitted) && e.text.length > text.emitted.length) {
      const rest = e.text.slice(text.emitted.length)
      out.push({ type: e.type === 'reasoning' ? 'reasoning-delta' : 'text-delta', id, delta: rest })
      text.emitted = e.text
    }
    out.push(this.closeText(id, text))
    return out
  }

  private closeText(id: string, text: TextPart): UIMessageChunk {
    text.open = false
    return { type: text.kind === 'reasoning' ? 'reasoning-end' : 'text-end', id }
  }

  private toolCall(e: ToolCall, partId: string, toolMetadata?: { pendingId: string }): UIMessageChunk {
    this.parts.set(`${e.executionId}:${e.toolCallId}`, partId)
    this.open.push({ executionId: e.executionId, toolName: e.toolName, partId })
    return {
      type: 'tool-input-available',
      toolCallId: partId,
      toolName: e.toolName,
      input: e.input,
      dynamic: true,
      ...(toolMetadata ? { toolMetadata } : {}),
    }
  }

  private toolResult(e: Extract<ObservedEvent, { type: 'tool-result' }>): UIMessageChunk[] {
    const key = `${e.executionId}:${e.toolCallId}`
    // A result whose call came before this stream (a continuation after an answer): the UI holds its part.
    const id = this.parts.get(key) ?? this.takeCarried(e.toolName)
    this.parts.delete(key)
    const at = this.open.findIndex(p => p.partId === id)
    if (at >= 0) this.open.splice(at, 1)
    if (!id) return []
    const toolMetadata = { answered: true }
    return e.ok
      ? [{ type: 'tool-output-available', toolCallId: id, output: e.output ?? null, dynamic: true, toolMetadata }]
      : [{ type: 'tool-output-error', toolCallId: id, errorText: e.error?.message ?? 'failed', dynamic: true, toolMetadata }]
  }

  private takeCarried(toolName: string): string | undefined {
    const at = this.carried.findIndex(p => p.toolName === toolName)
    return at < 0 ? undefined : this.carried.splice(at, 1)[0]!.partId
  }
}
