import { defaultToolLimits, type ToolLimits } from '../tools/tool-context.js'

/** Bounds of one execution, plus the tool limits. Every one has a default. */
export interface TaskLimits extends ToolLimits {
  /** Windows an execution may open in total. Default 60. */
  maxWindows: number
  /** Model calls per window before the window ends and the next one opens from the plan. Default 16. */
  maxStepsPerWindow: number
  /** Extra windows allowed after a checkpoint before one of them must reach the next checkpoint. Default 4. */
  maxRetriesPerCheckpoint: number
  /** Consecutive windows without one successful tool call before the run fails as stuck. Default 3. */
  maxIdleWindows: number
  /** Consecutive plan updates that add no step and change no status (notes only) before the run fails as stuck. Default 5. */
  maxStalledCheckpoints: number
  /** Results `submit_result` may have rejected before the run fails. Default 5. */
  maxSubmissions: number
  /** Tool calls per execution. Default 2 000. */
  maxToolCalls: number
  /** Retries of one model call that failed retryably (429 and 5xx answers, dropped connections). Default 2. */
  maxModelRetries: number
  /** The longest wait before a retry, in ms; a longer `retry-after` is not waited for (the backoff, 0.5 s doubling, applies). Default 60 000. */
  maxRetryDelayMs: number
}

/** The defaults of {@link TaskLimits}. */
export const defaultTaskLimits: Readonly<TaskLimits> = Object.freeze({
  ...defaultToolLimits,
  maxWindows: 60,
  maxStepsPerWindow: 16,
  maxRetriesPerCheckpoint: 4,
  maxIdleWindows: 3,
  maxStalledCheckpoints: 5,
  maxSubmissions: 5,
  maxToolCalls: 2_000,
  maxModelRetries: 2,
  maxRetryDelayMs: 60_000,
})
