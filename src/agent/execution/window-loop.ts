import type { TaskErrorCode } from '../state/events.js'
import type { FunctionToolSpec, PromptMessage, TextPart, ToolCallPart, ToolResultPart } from '../model/model.js'
import { callModel, type ModelTurn, type TextDelta } from '../model/model-call.js'
import { addUsage } from '../model/model-output.js'
import type { WindowReason } from '../model/prompt.js'
import { allowRuleFor } from '../policy/policy.js'
import { fetchAllowRule } from '../policy/fetch-policy.js'
import type { PendingAction } from '../state/pending.js'
import type { Plan } from '../state/plan.js'
import type { CallOutcome, ExecutionContext, WindowEnd, WindowStart } from './execution-context.js'
import { completeExecution, executionResult, failExecution, interruptExecution, suspendExecution } from './execution-end.js'
import { errorPart, okPart, parseInput, type TaskResult } from './task-result.js'
import { callTool, programResume } from './tool-call.js'
import { stopOnBudget } from './budget-stop.js'
import { BudgetGate } from '../budget/gate.js'
import { traceModelCall, traceToolCall } from '../telemetry/spans.js'
import { windowOpening } from './window-opening.js'

export type { WindowStart } from './execution-context.js'

/** Drives one execution through windows until it completes, fails, suspends or is interrupted. */
export class WindowLoop {
  private readonly specs: FunctionToolSpec[]

  constructor(
    private readonly ctx: ExecutionContext,
    specs: FunctionToolSpec[],
  ) {
    this.specs = specs
    // Each accepted plan revision is a checkpoint, written in the same commit as the plan.
    ctx.plan.onAccept = (plan, previous) => {
      // An update that adds no step and changes no status (notes, titles only) is not progress.
      this.record.stalledCheckpoints = statusSignature(previous) === statusSignature(plan) ? (this.record.stalledCheckpoints ?? 0) + 1 : 0
      return ctx.recorder.checkpoint(plan)
    }
  }

  private get record() {
    return this.ctx.recorder.record
  }

  /** Runs windows until the execution ends or waits. */
  async drive(start: WindowStart): Promise<TaskResult> {
    let next: WindowStart | { reason: 'checkpoint' | 'step-limit' | 'no-tool-call'; note?: string } = start
    for (;;) {
      let end: WindowEnd
      if ('pending' in next) {
        end = await this.continueSuspended(next.pending)
      } else {
        // An abort during the previous window's last call (e.g. the checkpointing update_plan) opens no new window.
        if (this.ctx.signal?.aborted) {
          await interruptExecution(this.ctx)
          return executionResult(this.ctx)
        }
        const limit = this.overLimit()
        if (limit) return failExecution(this.ctx, limit[0], limit[1])
        // Counted in memory; stored with the window's end (a crash mid-window loses one count at most).
        this.record.windows++
        this.record.windowsSinceCheckpoint++
        const messages = await this.opening(next.reason, next.note)
        end = await this.window(messages)
      }
      switch (end.kind) {
        case 'checkpoint':
          next = { reason: 'checkpoint' }
          break
        case 'step-limit':
          next = { reason: 'step-limit', note: 'The previous window used all its steps. Continue from the plan and the files.' }
          break
        case 'no-tool-call':
          next = {
            reason: 'no-tool-call',
            note: 'The previous window ended without a tool call. Continue the plan with tools; when every step is completed, call submit_result.',
          }
          break
        case 'model-error':
          next = { reason: 'resume', note: 'The model call failed in the previous window; continue from the plan and the files.' }
          break
        default:
          return executionResult(this.ctx)
      }
    }
  }

  private overLimit(): [TaskErrorCode, string] | undefined {
    const r = this.record
    const l = this.ctx.limits
    if (r.windows >= l.maxWindows) return ['window-limit', `the execution used all ${l.maxWindows} windows without finishing`]
    if (r.windowsSinceCheckpoint > l.maxRetriesPerCheckpoint)
      return ['checkpoint-retries', `${r.windowsSinceCheckpoint} windows since checkpoint ${r.checkpoint} reached no new checkpoint`]
    if (r.idleWindows >= l.maxIdleWindows) return ['no-progress', `${r.idleWindows} windows in a row made no successful tool call`]
    if ((r.stalledCheckpoints ?? 0) >= l.maxStalledCheckpoints)
      return ['no-progress', `${r.stalledCheckpoints} plan updates in a row added no step and changed no status`]
    return undefined
  }

  private async opening(reason: WindowReason, note?: string): Promise<PromptMessage[]> {
    const { system, user, state } = await windowOpening(this.ctx, reason, note)
    await this.ctx.recorder.emit({
      type: 'window-start',
      window: this.record.windows,
      reason,
      ...(state.plan ? { planRevision: state.plan.revision } : {}),
    })
    return [
      { role: 'system', content: system },
      { role: 'user', content: [{ type: 'text', text: user }] },
    ]
  }

  /** One window: model turns and tool calls until a checkpoint, the step limit, or the end. */
  private async window(messages: PromptMessage[], progressedBefore = false): Promise<WindowEnd> {
    let progressed = progressedBefore
    const { limits, signal, recorder } = this.ctx
    for (let step = 0; step < limits.maxStepsPerWindow; step++) {
      if (signal?.aborted) return interruptExecution(this.ctx)
      const over = await this.ctx.budget.reached()
      if (over) return stopOnBudget(this.ctx, over)
      let turn: ModelTurn
      try {
        turn = await this.callModel(messages)
      } catch (error) {
        if (signal?.aborted) return interruptExecution(this.ctx)
        await recorder.emit({
          type: 'error',
          code: 'model-error',
          message: error instanceof Error ? error.message : String(error),
        })
        return this.endWindow(progressed, { kind: 'model-error' })
      }
      const texts: TextPart[] = turn.texts.filter(t => t.text !== '').map(t => ({ type: 'text', text: t.text }))
      const calls: ToolCallPart[] = []
      const badInputs = new Map<ToolCallPart, string>()
      for (const c of turn.toolCalls) {
        const parsed = parseInput(c.input)
        const call: ToolCallPart = { type: 'tool-call', toolCallId: c.toolCallId, toolName: c.toolName, input: parsed.input }
        calls.push(call)
        if (parsed.error) badInputs.set(call, parsed.error)
      }
      for (const r of turn.reasoning)
        if (r.text !== '') await recorder.emit({ type: 'reasoning', text: r.text, ...(r.streamId ? { streamId: r.streamId } : {}) })
      for (const t of turn.texts)
        if (t.text !== '') await recorder.emit({ type: 'text', text: t.text, ...(t.streamId ? { streamId: t.streamId } : {}) })
      messages.push({ role: 'assistant', content: [...texts, ...calls] })
      if (calls.length === 0) {
        // Without a contract, a text answer ends the task once the plan (if any) is complete.
        if (!this.ctx.contract && texts.length > 0 && (!this.ctx.plan.plan || this.ctx.plan.complete)) {
          return completeExecution(this.ctx, { accepted: true, result: texts.map(t => t.text).join('\n') })
        }
        return this.endWindow(progressed, { kind: 'no-tool-call' })
      }
      const results: ToolResultPart[] = []
      let end: WindowEnd | undefined
      for (const [i, call] of calls.entries()) {
        if (end) {
          results.push(
            errorPart(
              call,
              'Not run: an earlier call in this turn ended the window (checkpoint or result). Call it again if still needed.',
            ),
          )
          continue
        }
        const over = await this.ctx.budget.reached(BudgetGate.TOOL_FIGURES)
        if (over) return stopOnBudget(this.ctx, over)
        const outcome = await traceToolCall(this.ctx.trace, call, () => callTool(this.ctx, call, false, badInputs.get(call)))
        if (outcome.suspend) {
          const after = calls
            .slice(i + 1)
            .map(c =>
              errorPart(c, 'Not run: the execution paused for the user on an earlier call in this turn. Call it again if still needed.'),
            )
          return suspendExecution(this.ctx, call, outcome.suspend, messages, results, after)
        }
        results.push(outcome.part)
        progressed ||= outcome.ok
        end = outcome.end
        if (signal?.aborted && !end) end = { kind: 'interrupted' }
      }
      messages.push({ role: 'tool', content: results })
      if (end?.kind === 'interrupted') return interruptExecution(this.ctx)
      if (end) return end.kind === 'checkpoint' ? this.endWindow(progressed, end) : end
    }
    return this.endWindow(progressed, { kind: 'step-limit' })
  }

  private async endWindow(progressed: boolean, end: WindowEnd): Promise<WindowEnd> {
    this.record.idleWindows = progressed ? 0 : this.record.idleWindows + 1
    // A checkpoint has just stored the record (a checkpoint is progress); anything else stores it now.
    if (end.kind !== 'checkpoint') await this.ctx.recorder.save()
    return end
  }

  /** Continues a suspended window with the answer to its pending action. */
  private async continueSuspended(p: PendingAction): Promise<WindowEnd> {
    const call: ToolCallPart = { type: 'tool-call', toolCallId: p.toolCallId, toolName: p.toolName, input: p.input }
    const answer = p.answer!
    // The work done in this window before it suspended still counts towards completing a step.
    this.ctx.plan.restoreWork(p.window.workSinceUpdate ?? 0)
    await this.ctx.recorder.emit({ type: 'window-start', window: p.window.number, reason: 'resume' })
    let outcome: CallOutcome
    if (p.program) {
      // A parked program: every answer resumes it (replayed against its journal); see programResume.
      if ('decision' in answer && answer.decision === 'always')
        await this.ctx.policy.save(p.fetch ? fetchAllowRule(p.fetch) : allowRuleFor(p.toolName, p.access ?? { access: 'none', paths: [] }))
      outcome = await callTool(this.ctx, call, true, undefined, programResume(p))
      if (outcome.suspend) return suspendExecution(this.ctx, call, outcome.suspend, p.window.messages, p.window.before, p.window.after)
    } else if ('answer' in answer) {
      outcome = { part: okPart(call, { answer: answer.answer }), ok: true }
      await this.ctx.recorder.emit({
        type: 'tool-result',
        toolCallId: call.toolCallId,
        toolName: call.toolName,
        ok: true,
        output: { answer: answer.answer },
      })
    } else if (answer.decision === 'deny') {
      const message = `The user denied ${p.toolName}${answer.message ? `: ${answer.message}` : ''}. Next: do not retry it; continue another way or ask_user.`
      outcome = { part: errorPart(call, message), ok: false }
      await this.ctx.recorder.emit({
        type: 'tool-result',
        toolCallId: call.toolCallId,
        toolName: call.toolName,
        ok: false,
        error: { code: 'denied', message },
      })
    } else {
      if (answer.decision === 'always') {
        await this.ctx.policy.save(allowRuleFor(p.toolName, p.access ?? { access: 'none', paths: [] }))
      }
      outcome = await traceToolCall(this.ctx.trace, call, () => callTool(this.ctx, call, true))
    }
    const messages = [...p.window.messages, { role: 'tool' as const, content: [...p.window.before, outcome.part, ...p.window.after] }]
    if (outcome.end) return outcome.end.kind === 'checkpoint' ? this.endWindow(true, outcome.end) : outcome.end
    return this.window(messages, outcome.ok)
  }

  /** One model call (streamed when the model can, retried when it fails retryably); its usage is counted and logged. */
  private async callModel(messages: PromptMessage[]): Promise<ModelTurn> {
    const { model, limits, signal, recorder } = this.ctx
    const call = this.record.modelCalls + 1
    const onDelta = this.ctx.onDelta
    // Counted for budgets when started; with a budget, durably first: a run resumed after a crash cannot spend past it.
    this.record.modelCallsStarted = (this.record.modelCallsStarted ?? this.record.modelCalls) + 1
    if (this.ctx.budget.active) await recorder.save()
    const cap = this.ctx.budget.maxOutputTokens
    const request = {
      prompt: messages,
      tools: this.specs,
      toolChoice: { type: 'auto' as const },
      ...(cap !== undefined ? { maxOutputTokens: cap } : {}),
    }
    const turn = await traceModelCall(this.ctx.trace, model, cap, () =>
      callModel(
        model,
        { ...request, ...(signal ? { abortSignal: signal } : {}) },
        {
          stream: this.ctx.stream,
          maxRetries: limits.maxModelRetries,
          maxRetryDelayMs: limits.maxRetryDelayMs,
          streamId: `${this.record.id}.${call}`,
          ...(signal ? { signal } : {}),
          ...(onDelta ? { onDelta: (d: TextDelta) => onDelta({ ...d, executionId: this.record.id }) } : {}),
          onRetry: async ({ attempt, delayMs, error }) => {
            this.record.modelRetries = (this.record.modelRetries ?? 0) + 1
            await recorder.emit({
              type: 'model-retry',
              call,
              attempt,
              delayMs,
              ...(error.statusCode !== undefined ? { statusCode: error.statusCode } : {}),
              message: error.message.slice(0, 500),
            })
          },
        },
      ),
    )
    addUsage(this.record.usage, turn.usage)
    this.record.modelCalls = call
    await recorder.emit({
      type: 'model-call',
      call,
      window: this.record.windows,
      provider: model.provider,
      modelId: model.modelId,
      usage: turn.usage,
      finishReason: turn.finishReason,
      retries: turn.retries,
      durationMs: turn.durationMs,
      streamed: turn.streamed,
    })
    if (this.ctx.budget.active) await recorder.save()
    return turn
  }
}

function statusSignature(plan: Plan | undefined): string {
  return plan ? plan.steps.map(s => `${s.id}:${s.status}`).join('|') : ''
}
