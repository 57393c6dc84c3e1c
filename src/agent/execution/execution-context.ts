import type { Vfs } from 'agent-vfs'
import type { TaskLimits } from './limits.js'
import type { LanguageModel, ToolResultPart } from '../model/model.js'
import type { TextDelta } from '../model/model-call.js'
import type { RunPolicy } from '../policy/policy.js'
import type { ExecutionRecorder } from '../state/execution-records.js'
import type { PendingAction } from '../state/pending.js'
import type { PlanController } from '../state/plan.js'
import type { ResultContract } from '../tools/contract.js'
import type { ToolSet } from '../tools/tool.js'
import type { BudgetGate } from '../budget/gate.js'
import type { Context } from '@opentelemetry/api'

/**
 * Everything one execution needs while it runs, and the shapes its parts pass each other. Its own
 * module so the window loop, the window opening, tool calls and execution ends share it without
 * importing one another.
 */
export interface ExecutionContext {
  vfs: Vfs
  model: LanguageModel
  contract?: ResultContract
  limits: TaskLimits
  /** The caller's rules with the saved ones; run_js's view reads the same object. */
  policy: RunPolicy
  signal?: AbortSignal
  /** Steering messages for this execution; see `TaskRunOptions.steering`. */
  steering?: () => Promise<string[]>
  /** Call the model's `doStream` when it has one. */
  stream: boolean
  /** Live text and reasoning deltas; see `TaskRunOptions.onDelta`. */
  onDelta?: (delta: ExecutionDelta) => void
  recorder: ExecutionRecorder
  plan: PlanController
  tools: ToolSet
  /** The execution's budgets (a gate without budgets lets everything through). */
  budget: BudgetGate
  /** The OpenTelemetry context of the execution's span: model and tool call spans are its children. */
  trace: Context
}

/** A {@link TextDelta} of one execution. */
export type ExecutionDelta = TextDelta & { executionId: string }

/** How a window ended: the first four open another window, the rest end (or pause) the execution. */
export type WindowEnd =
  { kind: 'checkpoint' | 'step-limit' | 'no-tool-call' | 'model-error' } | { kind: 'done' | 'suspended' | 'interrupted' | 'failed' }

/** A pending action before it has an id and a window: what a suspending call asks. */
export type Suspension = Omit<PendingAction, 'id' | 'executionId' | 'createdAt' | 'window'>

/** What one tool call gave: the part for the model, whether it succeeded, and what it did to the execution. */
export interface CallOutcome {
  part: ToolResultPart
  ok: boolean
  end?: WindowEnd
  suspend?: Suspension
}

/** Where a window starts: a fresh opening from the plan, or a suspended window to continue. */
export type WindowStart = { reason: 'start' | 'resume'; note?: string } | { pending: PendingAction }
