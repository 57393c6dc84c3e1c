import { jsonTextTooDeep, MAX_JSON_DEPTH, valueTooDeep } from '../tools/json-depth.js'
import type { ExecutionStatus } from '../state/events.js'
import type { ExecutionRecord, ModelUsageTotals } from '../state/execution-records.js'
import type { JsonValue, ToolCallPart, ToolResultPart } from '../model/model.js'
import { summarizePending, type PendingAction, type PendingSummary } from '../state/pending.js'
import type { Plan } from '../state/plan.js'

/** What `runTask` and `resumeTask` resolve to. */
export interface TaskResult<T = unknown> {
  executionId: string
  status: ExecutionStatus
  /** The accepted result (status `completed`). */
  result?: T
  summary?: string
  /** Why the run failed (status `failed`). */
  error?: { code: string; message: string }
  /** What the run waits for (status `suspended`). */
  pending?: PendingSummary
  plan?: Plan
  usage: ModelUsageTotals
  modelCalls: number
  toolCalls: number
  windows: number
}

/** Builds a {@link TaskResult} from a record. */
export function taskResult(r: ExecutionRecord, plan: Plan | undefined, pending: PendingAction | undefined): TaskResult {
  return {
    executionId: r.id,
    status: r.status,
    ...(r.status === 'completed' ? { result: r.result } : {}),
    ...(r.summary ? { summary: r.summary } : {}),
    ...(r.error ? { error: r.error } : {}),
    ...(pending && r.status === 'suspended' ? { pending: summarizePending(pending) } : {}),
    ...(plan ? { plan } : {}),
    usage: { ...r.usage },
    modelCalls: r.modelCalls,
    toolCalls: r.toolCalls,
    windows: r.windows,
  }
}

/**
 * Tool-call input arrives as JSON text; anything unparsable is passed on as is (the schema rejects
 * it). Input nested deeper than {@link MAX_JSON_DEPTH} is replaced by a short preview and `error`
 * says why, so the call fails as a tool error and nothing deep is ever stored or sent back.
 */
export function parseInput(input: unknown): { input: unknown; error?: string } {
  const tooDeep = typeof input === 'string' ? jsonTextTooDeep(input) : valueTooDeep(input)
  if (tooDeep) {
    const text = typeof input === 'string' ? input : '(a nested value)'
    return {
      input: text.length > 200 ? text.slice(0, 200) + '…' : text,
      error: `The tool input nests deeper than ${MAX_JSON_DEPTH} levels.`,
    }
  }
  if (typeof input !== 'string') return { input }
  try {
    return { input: JSON.parse(input) }
  } catch {
    return { input }
  }
}

/** A successful tool result part. */
export function okPart(call: ToolCallPart, value: unknown): ToolResultPart {
  return {
    type: 'tool-result',
    toolCallId: call.toolCallId,
    toolName: call.toolName,
    output: typeof value === 'string' ? { type: 'text', value } : { type: 'json', value: (value ?? null) as JsonValue },
  }
}

/** A failed tool result part. */
export function errorPart(call: ToolCallPart, message: string): ToolResultPart {
  return {
    type: 'tool-result',
    toolCallId: call.toolCallId,
    toolName: call.toolName,
    output: { type: 'error-text', value: message },
  }
}

/** A short form of a result for the event log. */
export function preview(value: unknown): unknown {
  const text = typeof value === 'string' ? value : JSON.stringify(value)
  if (text === undefined || text.length <= 2_000) return value
  return text.slice(0, 2_000) + '…'
}
