import { isVfsError, type Vfs } from 'agent-vfs'
import type { ResultContract } from '../tools/contract.js'
import type { ExecutionEventListener, TaskErrorCode } from '../state/events.js'
import { ExecutionRecorder, listExecutionIds } from '../state/execution-records.js'
import { EXECUTIONS_DIR, PLAN_PATH } from '../state/paths.js'
import { defaultTaskLimits, type TaskLimits } from './limits.js'
import type { LanguageModel } from '../model/model.js'
import { answerPending, readPending, type PendingAnswer } from '../state/pending.js'
import { PlanController, type Plan } from '../state/plan.js'
import { updatePlanTool } from '../tools/plan-tool.js'
import { RunPolicy, type PolicyRule } from '../policy/policy.js'
import { askUserTool } from '../tools/ask-tool.js'
import { submitResultTool } from '../tools/submit-tool.js'
import type { ExecutionDelta, WindowStart } from './execution-context.js'
import { WindowLoop } from './window-loop.js'
import { taskResult, type TaskResult } from './task-result.js'
import type { ToolSet } from '../tools/tool.js'
import { ReadLedger } from '../tools/tool-context.js'
import { createWorkspaceTools, toolSpecs, type RunJsSlot } from '../tools/toolset.js'
import type { BashSlot } from '../tools/bash-tool.js'
import { checkBudget, type Budget } from '../budget/budget.js'
import { BudgetGate, type SharedBudget } from '../budget/gate.js'
import { endExecutionSpan, startExecutionSpan } from '../telemetry/spans.js'

/** A refused runTask or resumeTask call (e.g. resuming with nothing to resume). */
export class TaskError extends Error {
  override readonly name = 'TaskError'
  constructor(
    readonly code: TaskErrorCode,
    message: string,
  ) {
    super(message)
  }
}

/** What {@link runTask} and {@link resumeTask} share. */
export interface TaskRunOptions<T = unknown> {
  /** The workspace, usually a run scope (`scopeRun(vfs, { runId })`). Executions are recorded under its /state. */
  vfs: Vfs
  /** Any AI-SDK language model (specification v2, v3 or v4), or `scriptedModel(...)`. */
  model: LanguageModel
  /** What the result must satisfy; `submit_result` checks it. Pass the same contract to `resumeTask`. */
  contract?: ResultContract<T>
  limits?: Partial<TaskLimits>
  /** Policy rules, first match wins; rules saved by "always allow" answers come before them. */
  policy?: PolicyRule[]
  /**
   * Adds the `run_js` tool: a factory given the view programs must use (`(view) => createRunJs({ vfs: view })`),
   * in which /state is read-only and the policy applies to each file operation. A runner object is refused.
   */
  runJs?: RunJsSlot
  /**
   * Adds the `bash` tool: a factory given the view command lines must use (`(view) => createBash({ vfs: view })`
   * of `agent-vfs/bash`). A command line ends by what is left of the `runJsCpuMs` budget, which its
   * time counts against, and when the run is aborted (then nothing it wrote lands).
   */
  bash?: BashSlot
  /** Extra tools, offered next to the built-in ones. */
  tools?: ToolSet
  /**
   * Hard stops for this execution (tokens, model calls, run_js CPU time, bytes written; each
   * unlimited when absent). A run that reaches one ends `interrupted` with the error
   * `budget-exceeded`; resume it with a larger budget to continue. See docs/usage-budgets.md.
   */
  budget?: Budget
  /** Budgets this execution shares with others (an owner's), each with what the others spent. */
  sharedBudgets?: SharedBudget[]
  /** Receives every event as it is logged. */
  onEvent?: ExecutionEventListener
  /**
   * Receives assistant text and reasoning as the model streams it (never logged: the `text` event
   * with the same `streamId` holds the whole text once the call ends). Errors thrown are ignored.
   */
  onDelta?: (delta: ExecutionDelta) => void
  /** Call the model's `doStream` when it has one (live deltas); false: always `doGenerate`. Default true. */
  stream?: boolean
  /** Aborting ends the run as `interrupted` (resumable) after the current model call or tool call. */
  signal?: AbortSignal
  /**
   * Messages a person sent to this execution while it runs (steering). Read at every window
   * opening; return all of them each time (not only new ones), since each window starts afresh.
   */
  steering?: () => Promise<string[]>
}

/** Options of {@link runTask}. */
export interface RunTaskOptions<T = unknown> extends TaskRunOptions<T> {
  /** The task, or a follow-up message in the same session. */
  instructions: string
}

/** Options of {@link resumeTask}. */
export interface ResumeTaskOptions<T = unknown> extends TaskRunOptions<T> {
  /** The execution to resume. Default: the latest one. */
  executionId?: string
  /** Answers the pending approval or question before resuming. */
  answer?: PendingAnswer
}

/**
 * Starts a new execution of a task (or a follow-up in the same session: it sees every earlier
 * file and a summary of earlier executions) and drives the model through windows until the result
 * is accepted, the run fails within its bounds, waits for a person (`suspended`) or is aborted.
 */
export async function runTask<T = unknown>(options: RunTaskOptions<T>): Promise<TaskResult<T>> {
  checkOptions(options)
  if (typeof options.instructions !== 'string' || options.instructions.trim() === '')
    throw new TypeError('runTask needs instructions: the task, as text')
  const ids = await listExecutionIds(options.vfs)
  if (ids.length > 0) {
    const last = await ExecutionRecorder.open(options.vfs, ids[ids.length - 1])
    const status = last?.record.status
    if (status === 'running' || status === 'suspended' || status === 'interrupted') {
      throw new TaskError(
        'execution-in-progress',
        `Execution ${last!.record.id} is ${status}: continue it with resumeTask(...) before starting a new one.`,
      )
    }
  }
  await archivePlan(options.vfs)
  const recorder = await ExecutionRecorder.create(options.vfs, options.instructions, options.contract !== undefined)
  return driveExecution(options, recorder, { reason: 'start' }, false) as Promise<TaskResult<T>>
}

/**
 * Continues an execution on the same workspace: after a crash or an abort from the last
 * checkpoint (plan and files), after a suspension with the answer to its pending action.
 * A finished execution is returned as it is.
 */
export async function resumeTask<T = unknown>(options: ResumeTaskOptions<T>): Promise<TaskResult<T>> {
  checkOptions(options)
  const ids = await listExecutionIds(options.vfs)
  const id = options.executionId ?? ids[ids.length - 1]
  const recorder = id ? await ExecutionRecorder.open(options.vfs, id) : undefined
  if (!recorder)
    throw new TaskError(
      'nothing-to-resume',
      id ? `There is no execution "${id}".` : 'This workspace has no execution to resume: start one with runTask(...).',
    )
  const r = recorder.record
  if (r.hasContract && !options.contract)
    throw new TaskError('contract-missing', `Execution ${r.id} has a result contract: pass the same contract to resumeTask.`)
  const plan = new PlanController(options.vfs, r.id)
  await plan.load()
  if (r.status === 'completed' || r.status === 'failed') return taskResult(r, plan.plan, undefined) as TaskResult<T>
  if (plan.plan && plan.plan.revision > r.checkpoint) await recorder.checkpoint(plan.plan) // the run died between plan and checkpoint record
  if (r.status === 'suspended') {
    let pending = r.pendingId ? await readPending(options.vfs, r.pendingId) : undefined
    if (!pending) throw new TaskError('not-answered', `Execution ${r.id} is suspended but its pending action is missing.`)
    if (options.answer) {
      try {
        pending = await answerPending(options.vfs, pending.id, options.answer)
      } catch (error) {
        throw new TaskError('invalid-answer', (error as Error).message)
      }
    }
    if (!pending.answer) return taskResult(r, plan.plan, pending) as TaskResult<T>
    r.status = 'running'
    delete r.pendingId
    r.answeredPendingId = pending.id
    await recorder.save()
    return driveExecution(options, recorder, { pending }, true, plan) as Promise<TaskResult<T>>
  }
  // A run that died after it was resumed with an answer, before its next checkpoint: the same answer again.
  const answered = r.answeredPendingId ? await readPending(options.vfs, r.answeredPendingId) : undefined
  r.status = 'running'
  // An execution a budget stopped runs on (and is stopped again at once if the budget was not raised).
  delete r.error
  delete r.budgetExceeded
  await recorder.save()
  if (answered?.answer) return driveExecution(options, recorder, { pending: answered }, true, plan) as Promise<TaskResult<T>>
  const note =
    'The previous run stopped before finishing. Continue from the plan; files written after the last checkpoint are still there, so check them before redoing work.'
  return driveExecution(options, recorder, { reason: 'resume', note }, true, plan) as Promise<TaskResult<T>>
}

/** Builds the execution's tools and context and drives it through windows. */
async function driveExecution(
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- internal: the result type is the caller's
  options: TaskRunOptions<any>,
  recorder: ExecutionRecorder,
  first: WindowStart,
  resumed: boolean,
  loaded?: PlanController,
): Promise<TaskResult> {
  const { vfs } = options
  const plan = loaded ?? new PlanController(vfs, recorder.record.id)
  if (!loaded) await plan.load()
  const unsubscribe = options.onEvent ? recorder.subscribe(options.onEvent) : () => {}
  const span = startExecutionSpan(options.model, recorder.record.id, resumed)
  try {
    const limits = { ...defaultTaskLimits, ...options.limits }
    const policy = new RunPolicy(vfs, options.policy ?? [])
    const budget = new BudgetGate(recorder.record, options.budget, options.sharedBudgets)
    const tools: ToolSet = {
      ...createWorkspaceTools({
        vfs,
        limits,
        reads: new ReadLedger(),
        policy: () => policy.rules(),
        ...(options.runJs ? { runJs: options.runJs } : {}),
        onRunJs: outcome => budget.addRunJsCpu(outcome.cpuMs),
        ...(options.bash ? { bash: options.bash, bashDeadline: () => budget.programDeadline(), onBash: ms => budget.addRunJsCpu(ms) } : {}),
      }),
      ...options.tools,
      update_plan: updatePlanTool(plan),
      submit_result: submitResultTool({
        vfs,
        plan,
        contract: options.contract,
        state: recorder.record.submission,
        onState: () => recorder.save(),
      }),
      ask_user: askUserTool(),
    }
    const loop = new WindowLoop(
      {
        vfs,
        model: options.model,
        contract: options.contract,
        limits,
        policy,
        recorder,
        plan,
        tools,
        budget,
        trace: span.ctx,
        ...(options.signal ? { signal: options.signal } : {}),
        ...(options.steering ? { steering: options.steering } : {}),
        stream: options.stream ?? true,
        ...(options.onDelta ? { onDelta: safeListener(options.onDelta) } : {}),
      },
      toolSpecs(tools),
    )
    await recorder.emit({ type: 'execution-start', instructions: recorder.record.instructions, resumed })
    // Every way a run ends emits its final events before its last save, so nothing is left to flush.
    return await loop.drive(first)
  } finally {
    endExecutionSpan(span.span, recorder.record)
    unsubscribe()
  }
}

/** Moves a finished execution's plan out of /state/plan.json so the next execution starts its own. */
async function archivePlan(vfs: Vfs): Promise<void> {
  let plan: Plan
  try {
    plan = JSON.parse(await vfs.readFile(PLAN_PATH, 'utf8')) as Plan
  } catch (error) {
    if (isVfsError(error, 'ENOENT')) return
    throw error
  }
  const target = `${EXECUTIONS_DIR}/${plan.executionId}/plan.json`
  if (!(await vfs.exists(target))) await vfs.writeFile(target, JSON.stringify(plan, null, 2))
  await vfs.deleteFile(PLAN_PATH)
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- internal: checks options whatever the result type
function checkOptions(options: TaskRunOptions<any>): void {
  if (options?.runJs !== undefined && typeof options.runJs !== 'function') {
    throw new TypeError(
      'runJs must be a factory such as (view) => createRunJs({ vfs: view }): a runner made beforehand holds a workspace in which programs could write /state',
    )
  }
  checkBudget(options?.budget, 'budget')
  for (const shared of options?.sharedBudgets ?? []) checkBudget(shared.budget, `sharedBudgets (${shared.scope})`)
  if (!options?.vfs || typeof options.vfs.readFile !== 'function')
    throw new TypeError('pass vfs: a workspace from openVfs(...) or scopeRun(...)')
  if (!options.model || typeof options.model.doGenerate !== 'function')
    throw new TypeError('pass model: an AI-SDK language model (v2, v3 or v4) or scriptedModel(...)')
  if (!['v2', 'v3', 'v4'].includes(options.model.specificationVersion))
    throw new TypeError(
      `model: specification ${JSON.stringify(options.model.specificationVersion)} is not supported (v2, v3 and v4 are); upgrade agent-vfs or the provider package`,
    )
}

/** A listener whose failure must not change the run. */
function safeListener<T>(listener: (value: T) => void): (value: T) => void {
  return value => {
    try {
      listener(value)
    } catch {
      // ignored, as for onEvent
    }
  }
}
