import type { ExecutionContext, Suspension, WindowEnd } from './execution-context.js'
import { taskResult, type TaskResult } from './task-result.js'
import type { PromptMessage, ToolCallPart, ToolResultPart } from '../model/model.js'
import type { TaskErrorCode } from '../state/events.js'
import { readPending, writePending, type PendingAction } from '../state/pending.js'
import type { AcceptedResult } from '../tools/submit-tool.js'

/*
 * The ways an execution ends or pauses. Each emits its final events before its last save, so the
 * record and those events share one commit and nothing is left to flush.
 */

/** Ends the execution with an accepted result. */
export async function completeExecution(ctx: ExecutionContext, accepted: AcceptedResult): Promise<WindowEnd> {
  const r = ctx.recorder.record
  r.status = 'completed'
  r.result = accepted.result
  if (accepted.summary) r.summary = accepted.summary
  r.endedAt = Date.now()
  await ctx.recorder.emit({ type: 'result-accepted', result: accepted.result })
  await ctx.recorder.emit({ type: 'execution-end', status: 'completed' })
  // Issued in one tick: the final plan, the record (with the submission state) and the final events share a commit.
  const plan = ctx.plan.plan
  await Promise.all([
    ...(plan ? [ctx.vfs.writeFile(`${ctx.recorder.dir}/plan.json`, JSON.stringify(plan, null, 2))] : []),
    ctx.recorder.save(),
  ])
  return { kind: 'done' }
}

/** Ends the execution as failed. */
export async function failExecution(ctx: ExecutionContext, code: TaskErrorCode, message: string): Promise<TaskResult> {
  const r = ctx.recorder.record
  r.status = 'failed'
  r.error = { code, message }
  r.endedAt = Date.now()
  await ctx.recorder.emit({ type: 'error', code, message })
  await ctx.recorder.emit({ type: 'execution-end', status: 'failed', error: r.error })
  await ctx.recorder.save() // the record and the final events in one commit
  return executionResult(ctx)
}

/** Ends the execution as interrupted (resumable). */
export async function interruptExecution(ctx: ExecutionContext): Promise<WindowEnd> {
  ctx.recorder.record.status = 'interrupted'
  await ctx.recorder.emit({ type: 'execution-end', status: 'interrupted' })
  await ctx.recorder.save() // the record and the final event in one commit
  return { kind: 'interrupted' }
}

/**
 * Pauses the execution on a call that waits for a person: a durable pending action holds the
 * window transcript (`before` and `after` are the results of the turn's other calls).
 */
export async function suspendExecution(
  ctx: ExecutionContext,
  call: ToolCallPart,
  s: Suspension,
  messages: PromptMessage[],
  before: ToolResultPart[],
  after: ToolResultPart[],
): Promise<WindowEnd> {
  const r = ctx.recorder.record
  const id = `${r.id}-p${r.toolCalls}`
  const window = { number: r.windows, messages, before, after, workSinceUpdate: ctx.plan.workSinceUpdate }
  const pending: PendingAction = { ...s, id, executionId: r.id, createdAt: Date.now(), window }
  r.status = 'suspended'
  r.pendingId = id
  delete r.answeredPendingId
  if (s.kind === 'question') {
    await ctx.recorder.emit({
      type: 'question',
      pendingId: id,
      question: s.question ?? '',
      ...(s.options ? { options: s.options } : {}),
    })
  } else {
    const { toolName, input } = call
    await ctx.recorder.emit({ type: 'approval-required', pendingId: id, toolName, input, reason: s.reason ?? '' })
  }
  await ctx.recorder.emit({ type: 'execution-end', status: 'suspended' })
  // Issued in one tick: the pending action, the record and the final events share a commit.
  await Promise.all([writePending(ctx.vfs, pending), ctx.recorder.save()])
  return { kind: 'suspended' }
}

/** The execution as a {@link TaskResult}. */
export async function executionResult(ctx: ExecutionContext): Promise<TaskResult> {
  const r = ctx.recorder.record
  return taskResult(r, ctx.plan.plan, r.pendingId ? await readPending(ctx.vfs, r.pendingId) : undefined)
}
