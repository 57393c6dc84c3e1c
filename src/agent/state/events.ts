import type { Plan } from './plan.js'
import type { WindowReason } from '../model/prompt.js'
import type { BudgetExceeded } from '../budget/budget.js'

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
  | { type: 'text'; text: string }
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
