import type { Plan } from './plan.js'
import type { WindowReason } from '../model/prompt.js'
import type { BudgetExceeded } from '../budget/budget.js'
import type { FinishReason, ModelUsage } from '../model/model.js'

/** Where an execution stands. `interrupted` and `running` (after a crash) can be resumed; `suspended` waits for an answer. */
export type ExecutionStatus = 'running' | 'suspended' | 'interrupted' | 'completed' | 'failed'

/** Why a run failed, or why a runTask or resumeTask call was refused. */
export type TaskErrorCode =
  | 'window-limit'
  | 'checkpoint-retries'
  | 'no-progress'
  | 'tool-call-limit'
  | 'submission-limit'
  | 'model-error'
  | 'budget-exceeded'
  | 'execution-in-progress'
  | 'nothing-to-resume'
  | 'not-answered'
  | 'contract-missing'
  | 'invalid-answer'

/** The body of each event type an execution emits. */
export type ExecutionEventBody =
  | { type: 'execution-start'; instructions: string; resumed: boolean }
  | { type: 'window-start'; window: number; reason: WindowReason; planRevision?: number }
  /** Assistant text of one model call; `streamId` when it was streamed (live deltas with that id come before it). */
  | { type: 'text'; text: string; streamId?: string }
  /** Reasoning the provider sent, when it sends any (the same `streamId` rule as `text`). */
  | { type: 'reasoning'; text: string; streamId?: string }
  /**
   * One model call that answered: its usage (the same shape for every model version), why it
   * stopped, and the failed attempts before it. `call` counts the execution's calls from 1.
   */
  | {
      type: 'model-call'
      call: number
      window: number
      provider: string
      modelId: string
      usage: ModelUsage
      finishReason: FinishReason
      retries: number
      durationMs: number
      streamed: boolean
    }
  /** A model call failed retryably and is tried again after `delayMs` (the provider's `retry-after`, or a backoff). */
  | { type: 'model-retry'; call: number; attempt: number; delayMs: number; statusCode?: number; message: string }
  | { type: 'tool-call'; toolCallId: string; toolName: string; input: unknown }
  | {
      type: 'tool-result'
      toolCallId: string
      toolName: string
      ok: boolean
      output?: unknown
      error?: { code: string; message: string }
    }
  | { type: 'plan-updated'; plan: Plan; completed?: string }
  | { type: 'checkpoint'; revision: number; path: string }
  | { type: 'approval-required'; pendingId: string; toolName: string; input: unknown; reason: string }
  | { type: 'question'; pendingId: string; question: string; options?: string[] }
  | { type: 'result-rejected'; problems: string[] }
  | { type: 'result-accepted'; result: unknown }
  | { type: 'execution-end'; status: ExecutionStatus; error?: { code: string; message: string } }
  | { type: 'error'; code: string; message: string }
  /** A budget was reached: the execution ends `interrupted` (resumable once the budget is raised). */
  | ({ type: 'budget-exceeded'; message: string } & BudgetExceeded)

/** One event of an execution: numbered from 1 per execution (across resumes), with a timestamp. */
export type ExecutionEvent = ExecutionEventBody & { executionId: string; seq: number; at: number }

/** Type of an event, e.g. `tool-call`. */
export type ExecutionEventType = ExecutionEvent['type']

/** Receives events as they happen. Errors thrown by a listener are ignored. */
export type ExecutionEventListener = (event: ExecutionEvent) => void
