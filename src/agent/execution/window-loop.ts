import type { Vfs } from 'agent-vfs'
import { askUserSchema } from '../tools/ask-tool.js'
import type { ResultContract } from '../tools/contract.js'
import type { ExecutionStatus, TaskErrorCode } from '../state/events.js'
import type { ExecutionJournal } from '../state/execution-records.js'
import type { TaskLimits } from './limits.js'
import type { FunctionToolSpec, LanguageModel, PromptMessage, TextPart, ToolCallPart, ToolResultPart } from '../model/model.js'
import { errorPart, okPart, parseInput, preview, taskResult, type TaskResult } from './task-result.js'
import { readPending, writePending, type PendingAction } from '../state/pending.js'
import type { WindowReason } from '../model/prompt.js'
import { planRuleError, type Plan, type PlanController } from '../state/plan.js'
import { allowRuleFor, evaluatePolicy, type RunPolicy } from '../policy/policy.js'
import { spillLargeResult } from './spill.js'
import type { AcceptedResult } from '../tools/submit-tool.js'
import { toToolError, ToolError, type ToolSet } from '../tools/tool.js'
import { windowOpening } from './window-opening.js'

/** Everything one execution needs while it runs. */
export interface TaskRunContext {
  vfs: Vfs
  model: LanguageModel
  contract?: ResultContract<any>
  limits: TaskLimits
  /** The caller's rules with the saved ones; run_js's view reads the same object. */
  policy: RunPolicy
  signal?: AbortSignal
  /** Steering messages for this execution; see `TaskRunOptions.steering`. */
  steering?: () => Promise<string[]>
  journal: ExecutionJournal
  plan: PlanController
  tools: ToolSet
}

type WindowEnd =
  | { kind: 'checkpoint' | 'step-limit' | 'no-tool-call' | 'model-error' }
  | { kind: 'done' | 'suspended' | 'interrupted' | 'failed' }

interface CallOutcome {
  part: ToolResultPart
  ok: boolean
  end?: WindowEnd
  suspend?: Omit<PendingAction, 'id' | 'executionId' | 'createdAt' | 'window'>
}

/** Where a window starts: a fresh opening from the plan, or a suspended window to continue. */
export type WindowStart = { reason: 'start' | 'resume'; note?: string } | { pending: PendingAction }

/** Drives one execution through windows until it completes, fails, suspends or is interrupted. */
export class TaskRun {
  private readonly specs: FunctionToolSpec[]

  constructor(private readonly ctx: TaskRunContext, specs: FunctionToolSpec[]) {
    this.specs = specs
    // Each accepted plan revision is a checkpoint, written in the same commit as the plan.
    ctx.plan.onAccept = (plan, previous) => {
      // An update that adds no step and changes no status (notes, titles only) is not progress.
      this.record.stalledCheckpoints = statusSignature(previous) === statusSignature(plan) ? (this.record.stalledCheckpoints ?? 0) + 1 : 0
      return ctx.journal.checkpoint(plan)
    }
  }

  private get record() {
    return this.ctx.journal.record
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
          await this.interrupt()
          return this.result()
        }
        const limit = this.overLimit()
        if (limit) return this.fail(limit[0], limit[1])
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
          next = { reason: 'no-tool-call', note: 'The previous window ended without a tool call. Continue the plan with tools; when every step is completed, call submit_result.' }
          break
        case 'model-error':
          next = { reason: 'resume', note: 'The model call failed in the previous window; continue from the plan and the files.' }
          break
        default:
          return this.result()
      }
    }
  }

  private overLimit(): [TaskErrorCode, string] | undefined {
    const r = this.record
    const l = this.ctx.limits
    if (r.windows >= l.maxWindows) return ['window-limit', `the execution used all ${l.maxWindows} windows without finishing`]
    if (r.windowsSinceCheckpoint > l.maxRetriesPerCheckpoint) return ['checkpoint-retries', `${r.windowsSinceCheckpoint} windows since checkpoint ${r.checkpoint} reached no new checkpoint`]
    if (r.idleWindows >= l.maxIdleWindows) return ['no-progress', `${r.idleWindows} windows in a row made no successful tool call`]
    if ((r.stalledCheckpoints ?? 0) >= l.maxStalledCheckpoints) return ['no-progress', `${r.stalledCheckpoints} plan updates in a row added no step and changed no status`]
    return undefined
  }

  private async opening(reason: WindowReason, note?: string): Promise<PromptMessage[]> {
    const { system, user, state } = await windowOpening(this.ctx, reason, note)
    await this.ctx.journal.emit({ type: 'window-start', window: this.record.windows, reason, ...(state.plan ? { planRevision: state.plan.revision } : {}) })
    return [
      { role: 'system', content: system },
      { role: 'user', content: [{ type: 'text', text: user }] },
    ]
  }

  /** One window: model turns and tool calls until a checkpoint, the step limit, or the end. */
  private async window(messages: PromptMessage[], progressedBefore = false): Promise<WindowEnd> {
    let progressed = progressedBefore
    const { model, limits, signal, journal } = this.ctx
    for (let step = 0; step < limits.maxStepsPerWindow; step++) {
      if (signal?.aborted) return this.interrupt()
      let response
      try {
        response = await model.doGenerate({ prompt: messages, tools: this.specs, toolChoice: { type: 'auto' }, ...(signal ? { abortSignal: signal } : {}) })
      } catch (error) {
        if (signal?.aborted) return this.interrupt()
        await journal.emit({ type: 'error', code: 'model-error', message: error instanceof Error ? error.message : String(error) })
        return this.endWindow(progressed, { kind: 'model-error' })
      }
      this.addUsage(response.usage)
      const texts: TextPart[] = []
      const calls: ToolCallPart[] = []
      const badInputs = new Map<ToolCallPart, string>()
      for (const c of response.content) {
        if (c.type === 'text' && typeof c.text === 'string' && c.text !== '') texts.push({ type: 'text', text: c.text })
        if (c.type === 'tool-call') {
          const parsed = parseInput(c.input)
          const call: ToolCallPart = { type: 'tool-call', toolCallId: String(c.toolCallId), toolName: String(c.toolName), input: parsed.input }
          calls.push(call)
          if (parsed.error) badInputs.set(call, parsed.error)
        }
      }
      for (const t of texts) await journal.emit({ type: 'text', text: t.text })
      messages.push({ role: 'assistant', content: [...texts, ...calls] })
      if (calls.length === 0) {
        // Without a contract, a text answer ends the task once the plan (if any) is complete.
        if (!this.ctx.contract && texts.length > 0 && (!this.ctx.plan.plan || this.ctx.plan.complete)) {
          return this.complete({ accepted: true, result: texts.map((t) => t.text).join('\n') })
        }
        return this.endWindow(progressed, { kind: 'no-tool-call' })
      }
      const results: ToolResultPart[] = []
      let end: WindowEnd | undefined
      for (const [i, call] of calls.entries()) {
        if (end) {
          results.push(errorPart(call, 'Not run: an earlier call in this turn ended the window (checkpoint or result). Call it again if still needed.'))
          continue
        }
        const outcome = await this.callTool(call, false, badInputs.get(call))
        if (outcome.suspend) {
          const after = calls.slice(i + 1).map((c) => errorPart(c, 'Not run: the execution paused for the user on an earlier call in this turn. Call it again if still needed.'))
          return this.suspend(call, outcome.suspend, messages, results, after)
        }
        results.push(outcome.part)
        progressed ||= outcome.ok
        end = outcome.end
        if (signal?.aborted && !end) end = { kind: 'interrupted' }
      }
      messages.push({ role: 'tool', content: results })
      if (end?.kind === 'interrupted') return this.interrupt()
      if (end) return end.kind === 'checkpoint' ? this.endWindow(progressed, end) : end
    }
    return this.endWindow(progressed, { kind: 'step-limit' })
  }

  private async endWindow(progressed: boolean, end: WindowEnd): Promise<WindowEnd> {
    this.record.idleWindows = progressed ? 0 : this.record.idleWindows + 1
    // A checkpoint has just stored the record (a checkpoint is progress); anything else stores it now.
    if (end.kind !== 'checkpoint') await this.ctx.journal.save()
    return end
  }

  /**
   * Runs one tool call: rules, policy, execution, events, checkpoint. `approved` skips the policy's
   * ask; `inputError` (input the runner cannot take, see parseInput) fails the call as invalid input.
   */
  private async callTool(call: ToolCallPart, approved: boolean, inputError?: string): Promise<CallOutcome> {
    const { journal, tools, plan, contract, limits } = this.ctx
    if (!approved) {
      this.record.toolCalls++
      await journal.emit({ type: 'tool-call', toolCallId: call.toolCallId, toolName: call.toolName, input: call.input })
    }
    let end: WindowEnd | undefined
    let value: unknown
    let failure: ToolError | undefined
    try {
      if (this.record.toolCalls > limits.maxToolCalls) {
        end = { kind: 'failed' }
        throw new ToolError('failed', `The execution reached its limit of ${limits.maxToolCalls} tool calls.`, 'stop.')
      }
      if (inputError) throw new ToolError('invalid-input', inputError, 'call the tool again with flat input as its schema describes.')
      const tool = Object.prototype.hasOwnProperty.call(tools, call.toolName) ? tools[call.toolName] : undefined
      if (!tool) throw new ToolError('invalid-input', `There is no tool "${call.toolName}".`, `use one of: ${Object.keys(tools).join(', ')}.`)
      if (contract && !plan.plan && tool.kind === 'work') {
        throw planRuleError('plan-first', `${call.toolName} was called before any plan exists.`, 'call update_plan with your steps first.')
      }
      // Loaded before any tool runs: run_js checks each file operation against these rules.
      await this.ctx.policy.load()
      if (!approved) {
        if (call.toolName === 'ask_user') {
          const q = askUserSchema.safeParse(call.input)
          if (q.success) return this.pendingOutcome(call, { kind: 'question', question: q.data.question, ...(q.data.options ? { options: q.data.options } : {}) })
        }
        const access = tool.access(call.input)
        const verdict = evaluatePolicy(this.ctx.policy.rules(), call.toolName, access, tool.kind)
        if (verdict.decision === 'deny') {
          throw new ToolError('denied', `The policy does not allow ${call.toolName}${access.paths.length ? ` on ${access.paths.join(', ')}` : ''}: ${verdict.reason}.`, 'do it another way the policy allows, or ask_user if you cannot continue without it.')
        }
        if (verdict.decision === 'ask') return this.pendingOutcome(call, { kind: 'approval', reason: verdict.reason, access })
      }
      value = await tool.execute(call.input, { toolCallId: call.toolCallId, ...(this.ctx.signal ? { abortSignal: this.ctx.signal } : {}) })
      if (tool.kind === 'work') plan.noteWork()
    } catch (error) {
      failure = toToolError(error)
    }
    if (failure) {
      if (failure.code === 'result-rejected' && failure.detail?.rejected) {
        await journal.emit({ type: 'result-rejected', problems: failure.detail.problems as string[] })
        if (this.record.submission.attempts >= limits.maxSubmissions) end = { kind: 'failed' }
      }
      await journal.emit({ type: 'tool-result', toolCallId: call.toolCallId, toolName: call.toolName, ok: false, error: { code: failure.code, message: failure.message } })
      if (end?.kind === 'failed') {
        if (failure.code === 'result-rejected') await this.fail('submission-limit', `${this.record.submission.attempts} results were rejected; the last: ${(failure.detail?.problems as string[]).slice(0, 5).join('; ')}`)
        else await this.fail('tool-call-limit', failure.message)
      }
      return { part: errorPart(call, failure.message), ok: false, ...(end ? { end } : {}) }
    }
    if (call.toolName === 'update_plan' && plan.plan) {
      const cpPath = journal.checkpointPath(plan.plan.revision)
      await journal.emit({ type: 'plan-updated', plan: plan.plan, ...((value as { completed?: string }).completed ? { completed: (value as { completed: string }).completed } : {}) })
      await journal.emit({ type: 'checkpoint', revision: plan.plan.revision, path: cpPath })
      end = { kind: 'checkpoint' }
    }
    const output = await spillLargeResult(this.ctx.vfs, value, { maxChars: limits.resultChars, dir: `${journal.dir}/tool-results`, name: call.toolCallId })
    await journal.emit({ type: 'tool-result', toolCallId: call.toolCallId, toolName: call.toolName, ok: true, output: preview(output) })
    if (call.toolName === 'submit_result') end = await this.complete(value as AcceptedResult)
    return { part: okPart(call, output), ok: true, ...(end ? { end } : {}) }
  }

  private pendingOutcome(call: ToolCallPart, rest: Partial<PendingAction> & { kind: PendingAction['kind'] }): CallOutcome {
    return { part: errorPart(call, 'pending'), ok: false, suspend: { toolCallId: call.toolCallId, toolName: call.toolName, input: call.input, ...rest } }
  }

  private async suspend(call: ToolCallPart, s: NonNullable<CallOutcome['suspend']>, messages: PromptMessage[], before: ToolResultPart[], after: ToolResultPart[]): Promise<WindowEnd> {
    const id = `${this.record.id}-p${this.record.toolCalls}`
    const pending: PendingAction = { ...s, id, executionId: this.record.id, createdAt: Date.now(), window: { number: this.record.windows, messages, before, after, workSinceUpdate: this.ctx.plan.workSinceUpdate } }
    this.record.status = 'suspended'
    this.record.pendingId = id
    if (s.kind === 'question') await this.ctx.journal.emit({ type: 'question', pendingId: id, question: s.question ?? '', ...(s.options ? { options: s.options } : {}) })
    else await this.ctx.journal.emit({ type: 'approval-required', pendingId: id, toolName: call.toolName, input: call.input, reason: s.reason ?? '' })
    await this.ctx.journal.emit({ type: 'execution-end', status: 'suspended' })
    // Issued in one tick: the pending action, the record and the final events share a commit.
    await Promise.all([writePending(this.ctx.vfs, pending), this.ctx.journal.save()])
    return { kind: 'suspended' }
  }

  /** Continues a suspended window with the answer to its pending action. */
  private async continueSuspended(p: PendingAction): Promise<WindowEnd> {
    const call: ToolCallPart = { type: 'tool-call', toolCallId: p.toolCallId, toolName: p.toolName, input: p.input }
    const answer = p.answer!
    // The work done in this window before it suspended still counts towards completing a step.
    this.ctx.plan.restoreWork(p.window.workSinceUpdate ?? 0)
    await this.ctx.journal.emit({ type: 'window-start', window: p.window.number, reason: 'resume' })
    let outcome: CallOutcome
    if ('answer' in answer) {
      outcome = { part: okPart(call, { answer: answer.answer }), ok: true }
      await this.ctx.journal.emit({ type: 'tool-result', toolCallId: call.toolCallId, toolName: call.toolName, ok: true, output: { answer: answer.answer } })
    } else if (answer.decision === 'deny') {
      const message = `The user denied ${p.toolName}${answer.message ? `: ${answer.message}` : ''}. Next: do not retry it; continue another way or ask_user.`
      outcome = { part: errorPart(call, message), ok: false }
      await this.ctx.journal.emit({ type: 'tool-result', toolCallId: call.toolCallId, toolName: call.toolName, ok: false, error: { code: 'denied', message } })
    } else {
      if (answer.decision === 'always') {
        await this.ctx.policy.save(allowRuleFor(p.toolName, p.access ?? { access: 'none', paths: [] }))
      }
      outcome = await this.callTool(call, true)
    }
    const messages = [...p.window.messages, { role: 'tool' as const, content: [...p.window.before, outcome.part, ...p.window.after] }]
    if (outcome.end) return outcome.end.kind === 'checkpoint' ? this.endWindow(true, outcome.end) : outcome.end
    return this.window(messages, outcome.ok)
  }

  private addUsage(u: { inputTokens?: number; outputTokens?: number; totalTokens?: number } | undefined): void {
    const t = this.record.usage
    t.inputTokens += u?.inputTokens ?? 0
    t.outputTokens += u?.outputTokens ?? 0
    t.totalTokens += u?.totalTokens ?? (u?.inputTokens ?? 0) + (u?.outputTokens ?? 0)
    this.record.modelCalls++
  }

  private async complete(accepted: AcceptedResult): Promise<WindowEnd> {
    const r = this.record
    r.status = 'completed'
    r.result = accepted.result
    if (accepted.summary) r.summary = accepted.summary
    r.endedAt = Date.now()
    await this.ctx.journal.emit({ type: 'result-accepted', result: accepted.result })
    await this.ctx.journal.emit({ type: 'execution-end', status: 'completed' })
    // Issued in one tick: the final plan, the record (with the submission state) and the final events share a commit.
    const plan = this.ctx.plan.plan
    await Promise.all([
      ...(plan ? [this.ctx.vfs.writeFile(`${this.ctx.journal.dir}/plan.json`, JSON.stringify(plan, null, 2))] : []),
      this.ctx.journal.save(),
    ])
    return { kind: 'done' }
  }

  /** Ends the execution as failed. */
  async fail(code: TaskErrorCode, message: string): Promise<TaskResult> {
    const r = this.record
    r.status = 'failed'
    r.error = { code, message }
    r.endedAt = Date.now()
    await this.ctx.journal.emit({ type: 'error', code, message })
    await this.ctx.journal.emit({ type: 'execution-end', status: 'failed', error: r.error })
    await this.ctx.journal.save() // the record and the final events in one commit
    return this.result()
  }

  private async interrupt(): Promise<WindowEnd> {
    this.record.status = 'interrupted'
    await this.ctx.journal.emit({ type: 'execution-end', status: 'interrupted' })
    await this.ctx.journal.save() // the record and the final event in one commit
    return { kind: 'interrupted' }
  }

  /** The execution as a {@link TaskResult}. */
  async result(): Promise<TaskResult> {
    return taskResult(this.record, this.ctx.plan.plan, this.record.pendingId ? await readPending(this.ctx.vfs, this.record.pendingId) : undefined)
  }
}

function statusSignature(plan: Plan | undefined): string {
  return plan ? plan.steps.map((s) => `${s.id}:${s.status}`).join('|') : ''
}
