import type { UIMessage } from 'ai'
import { QUESTION_TOOL, type CarriedPart } from './chunks.js'

/** An answer a person gave in the UI that the session has not been sent yet. */
export interface UnsentAnswer extends CarriedPart {
  pendingId: string
  body: { decision: 'approve' | 'always' | 'deny'; message?: string } | { answer: string }
}

/**
 * The answers in the last assistant message not sent yet: approvals decided with
 * `addToolApprovalResponse` (a part in `approval-responded`; `reason: 'always'` approves the tool
 * from now on), questions answered with `addToolOutput` on the `ask_user` part (not marked answered
 * by the session yet).
 */
export function unsentAnswers(messages: readonly UIMessage[]): UnsentAnswer[] {
  const last = messages.at(-1)
  if (!last || last.role !== 'assistant') return []
  const out: UnsentAnswer[] = []
  for (const part of last.parts) {
    if (part.type !== 'dynamic-tool') continue
    const carried = { toolName: part.toolName, partId: part.toolCallId }
    if (part.state === 'approval-responded') {
      const decision = !part.approval.approved ? 'deny' : part.approval.reason === 'always' ? 'always' : 'approve'
      const message = decision === 'deny' ? part.approval.reason : undefined
      out.push({ ...carried, pendingId: part.approval.id, body: { decision, ...(message ? { message } : {}) } })
    }
    const meta = part.toolMetadata as { pendingId?: unknown; answered?: unknown } | undefined
    if (part.toolName === QUESTION_TOOL && part.state === 'output-available' && typeof meta?.pendingId === 'string' && !meta.answered)
      out.push({ ...carried, pendingId: meta.pendingId, body: { answer: answerText(part.output) } })
  }
  return out
}

/** `addToolOutput`'s output for a question: the answer itself, or `{ answer }`. */
function answerText(output: unknown): string {
  if (typeof output === 'string') return output
  const answer = (output as { answer?: unknown } | null)?.answer
  return typeof answer === 'string' ? answer : JSON.stringify(output)
}
