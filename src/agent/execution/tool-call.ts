import type { CallOutcome, ExecutionContext, WindowEnd } from './execution-context.js'
import { completeExecution, failExecution } from './execution-end.js'
import { spillLargeResult } from './spill.js'
import { errorPart, okPart, preview } from './task-result.js'
import type { ToolCallPart } from '../model/model.js'
import { evaluatePolicy } from '../policy/policy.js'
import type { PendingAction } from '../state/pending.js'
import { planRuleError } from '../state/plan.js'
import type { AcceptedResult } from '../tools/submit-tool.js'
import { toToolError, ToolError, ToolSuspended, type AgentTool, type ProgramResume } from '../tools/tool.js'

/**
 * Runs one tool call: rules, policy, execution, events, and what the tool's declared effect does
 * to the execution (suspend, checkpoint, complete). `approved` skips the policy's ask; `inputError`
 * (input the task loop cannot take, see parseInput) fails the call as invalid input.
 */
export async function callTool(
  ctx: ExecutionContext,
  call: ToolCallPart,
  approved: boolean,
  inputError?: string,
  resumeProgram?: ProgramResume,
): Promise<CallOutcome> {
  const { recorder, tools, plan, contract, limits } = ctx
  const record = recorder.record
  if (!approved) {
    record.toolCalls++
    await recorder.emit({ type: 'tool-call', toolCallId: call.toolCallId, toolName: call.toolName, input: call.input })
  }
  let end: WindowEnd | undefined
  let value: unknown
  let failure: ToolError | undefined
  let tool: AgentTool | undefined
  try {
    if (record.toolCalls > limits.maxToolCalls) {
      end = { kind: 'failed' }
      throw new ToolError('failed', `The execution reached its limit of ${limits.maxToolCalls} tool calls.`, 'stop.')
    }
    if (inputError) throw new ToolError('invalid-input', inputError, 'call the tool again with flat input as its schema describes.')
    tool = Object.prototype.hasOwnProperty.call(tools, call.toolName) ? tools[call.toolName] : undefined
    if (!tool) throw new ToolError('invalid-input', `There is no tool "${call.toolName}".`, `use one of: ${Object.keys(tools).join(', ')}.`)
    if (contract && !plan.plan && tool.kind === 'work') {
      throw planRuleError('plan-first', `${call.toolName} was called before any plan exists.`, 'call update_plan with your steps first.')
    }
    // Loaded before any tool runs: run_js checks each file operation against these rules.
    await ctx.policy.load()
    if (!approved) {
      const question = tool.effect === 'suspends' ? questionOf(tool, call.input) : undefined
      if (question) return pendingOutcome(call, { kind: 'question', ...question })
      const access = tool.access(call.input)
      const verdict = evaluatePolicy(ctx.policy.rules(), call.toolName, access, tool.kind)
      if (verdict.decision === 'deny') {
        const on = access.paths.length ? ` on ${access.paths.join(', ')}` : ''
        const next = 'do it another way the policy allows, or ask_user if you cannot continue without it.'
        throw new ToolError('denied', `The policy does not allow ${call.toolName}${on}: ${verdict.reason}.`, next)
      }
      if (verdict.decision === 'ask') return pendingOutcome(call, { kind: 'approval', reason: verdict.reason, access })
    }
    // Bytes are measured only under a budget: the workspace's size before and after the call.
    const bytesBefore = ctx.budget.active ? ctx.vfs.usage().bytes : undefined
    try {
      value = await tool.execute(call.input, {
        toolCallId: call.toolCallId,
        ...(ctx.signal ? { abortSignal: ctx.signal } : {}),
        ...(resumeProgram ? { resumeProgram } : {}),
      })
    } finally {
      if (bytesBefore !== undefined) ctx.budget.addBytes(ctx.vfs.usage().bytes - bytesBefore)
    }
    if (tool.kind === 'work') plan.noteWork()
  } catch (error) {
    // A program that asked a person: pending, exactly like the model's own ask_user or an approval.
    if (error instanceof ToolSuspended) return pendingOutcome(call, error.suspension)
    failure = toToolError(error)
  }
  if (failure) return failedOutcome(ctx, call, failure, end)
  if (tool!.effect === 'checkpoints' && plan.plan) {
    const completed = (value as { completed?: string }).completed
    await recorder.emit({ type: 'plan-updated', plan: plan.plan, ...(completed ? { completed } : {}) })
    await recorder.emit({ type: 'checkpoint', revision: plan.plan.revision, path: recorder.checkpointPath(plan.plan.revision) })
    end = { kind: 'checkpoint' }
  }
  const spill = { maxChars: limits.resultChars, dir: `${recorder.dir}/tool-results`, name: call.toolCallId }
  const output = await spillLargeResult(ctx.vfs, value, spill)
  await recorder.emit({
    type: 'tool-result',
    toolCallId: call.toolCallId,
    toolName: call.toolName,
    ok: true,
    output: preview(output),
  })
  if (tool!.effect === 'completes') end = await completeExecution(ctx, value as AcceptedResult)
  return { part: okPart(call, output), ok: true, ...(end ? { end } : {}) }
}

/** A failed call: its events, and the end of the execution when a bound is reached. */
async function failedOutcome(
  ctx: ExecutionContext,
  call: ToolCallPart,
  failure: ToolError,
  end: WindowEnd | undefined,
): Promise<CallOutcome> {
  const { recorder, limits } = ctx
  const record = recorder.record
  if (failure.code === 'result-rejected' && failure.detail?.rejected) {
    await recorder.emit({ type: 'result-rejected', problems: failure.detail.problems as string[] })
    if (record.submission.attempts >= limits.maxSubmissions) end = { kind: 'failed' }
  }
  const error = { code: failure.code, message: failure.message }
  await recorder.emit({ type: 'tool-result', toolCallId: call.toolCallId, toolName: call.toolName, ok: false, error })
  if (end?.kind === 'failed') {
    if (failure.code === 'result-rejected') {
      const last = (failure.detail?.problems as string[]).slice(0, 5).join('; ')
      await failExecution(ctx, 'submission-limit', `${record.submission.attempts} results were rejected; the last: ${last}`)
    } else {
      await failExecution(ctx, 'tool-call-limit', failure.message)
    }
  }
  return { part: errorPart(call, failure.message), ok: false, ...(end ? { end } : {}) }
}

/** The question a suspending tool's input asks, if the input is one (else the call runs and its schema rejects it). */
function questionOf(tool: AgentTool, input: unknown): { question: string; options?: string[] } | undefined {
  const parsed = tool.inputSchema.safeParse(input)
  if (!parsed.success) return undefined
  const { question, options } = parsed.data as { question?: unknown; options?: unknown }
  if (typeof question !== 'string') return undefined
  return { question, ...(Array.isArray(options) ? { options: options as string[] } : {}) }
}

function pendingOutcome(call: ToolCallPart, rest: Partial<PendingAction> & { kind: PendingAction['kind'] }): CallOutcome {
  const suspend = { toolCallId: call.toolCallId, toolName: call.toolName, input: call.input, ...rest }
  return { part: errorPart(call, 'pending'), ok: false, suspend }
}

/**
 * How a parked run_js program continues with the person's answer: a question's answer is the
 * result of its `ask_user` call; a denial fails the operation that asked (EACCES); an approval runs
 * that operation (a file operation, or a fetch of a new origin), granted once.
 */
export function programResume(p: PendingAction): ProgramResume {
  const { journal } = p.program!
  const answer = p.answer!
  if ('answer' in answer) return { journal, answer: { value: { answer: answer.answer } } }
  if (answer.decision === 'deny') {
    const why = answer.message ? `: ${answer.message}` : ''
    if (p.fetch) {
      const message = `the user denied ${p.fetch.method} ${p.fetch.origin}${why}; do not retry it, continue another way`
      return { journal, answer: { error: { name: 'FetchRefused', code: 'EACCES', message } } }
    }
    const message = `the user denied this${why}; do not retry it, continue another way`
    return { journal, answer: { error: { name: 'Error', code: 'EACCES', message } } }
  }
  if (p.fetch) return { journal, answer: { retry: true }, approved: { access: 'fetch', ...p.fetch } }
  const path = p.access?.paths[0]
  const access = p.access?.access
  return { journal, answer: { retry: true }, ...(path && (access === 'read' || access === 'write') ? { approved: { access, path } } : {}) }
}
