import { jsonTextTooDeep, MAX_JSON_DEPTH } from './json-depth.js'
import { z } from 'zod'
import { checkResult, type ResultContract } from './contract.js'
import { planRuleError, type PlanController } from '../state/plan.js'
import { defineTool, ToolError } from './tool.js'
import type { Vfs } from 'agent-vfs'

/** What `submit_result` remembers between calls; runTask stores it with the execution. */
export interface SubmissionState {
  /** Submissions so far. */
  attempts: number
  /** Set after a rejection: the plan's step ids at that moment and the problems found. */
  rejected?: { stepIds: string[]; problems: string[] }
}

/** What a successful `submit_result` returns. */
export interface AcceptedResult {
  accepted: true
  result: unknown
  summary?: string
}

/** Options of {@link submitResultTool}. */
export interface SubmitToolOptions {
  vfs: Vfs
  plan: PlanController
  contract?: ResultContract
  state: SubmissionState
  /** Called after a rejection changes `state`, so runTask can persist it before answering (an accepted result is saved by runTask when it completes the execution). */
  onState?: (state: SubmissionState) => Promise<void>
}

/**
 * `submit_result`: ends the task with its result. The plan must be complete; the result is
 * validated against the contract and, if rejected, a resubmission needs a new correction step.
 */
export function submitResultTool(options: SubmitToolOptions) {
  const { vfs, plan, contract, state } = options
  return defineTool({
    description:
      'Submit the final result when every plan step is completed. Pass result (JSON) or path (a JSON file holding it)' +
      (contract?.resultPath ? `; by default the result is read from ${contract.resultPath}` : '') +
      '. If it is rejected you get the problems: add a correction step with update_plan, fix them, complete the step, submit again.',
    inputSchema: z.object({
      result: z.unknown().optional().describe('The result as JSON'),
      path: z.string().optional().describe('A JSON file holding the result'),
      summary: z.string().max(4000).optional().describe('A short summary for the user'),
    }),
    kind: 'control',
    effect: 'completes',
    access: input => ({ access: 'read', paths: input.path ? [input.path] : [] }),
    async execute({ result, path, summary }): Promise<AcceptedResult> {
      if (plan.plan || contract) {
        const open = plan.plan?.steps.filter(s => s.status !== 'completed') ?? []
        if (!plan.plan)
          throw planRuleError('plan-complete', 'There is no plan yet.', 'make a plan with update_plan, do its steps, then submit.')
        if (open.length > 0) {
          throw planRuleError(
            'plan-complete',
            `The plan is not complete: ${open.map(s => `"${s.id}" is ${s.status}`).join(', ')}.`,
            'finish these steps and complete them with update_plan, then submit.',
          )
        }
      }
      if (state.rejected) {
        const before = new Set(state.rejected.stepIds)
        if (!plan.plan!.steps.some(s => !before.has(s.id))) {
          throw new ToolError(
            'result-rejected',
            `Your last result was rejected and the plan has no correction step since. The problems were:\n${state.rejected.problems.map(p => `- ${p}`).join('\n')}`,
            'add a new step for the fix with update_plan, fix the problems, complete the step, then submit again.',
            { problems: state.rejected.problems },
          )
        }
      }
      const raw = result !== undefined ? result : await readResult(vfs, path ?? contract?.resultPath)
      state.attempts++
      const verdict = contract ? await checkResult(contract, raw, vfs) : ({ ok: true, value: raw } as const)
      if (!verdict.ok) {
        state.rejected = { stepIds: plan.plan!.steps.map(s => s.id), problems: verdict.problems }
        await options.onState?.(state)
        throw new ToolError(
          'result-rejected',
          `The result was rejected (${verdict.problems.length} problem${verdict.problems.length === 1 ? '' : 's'}):\n- ${verdict.problems.slice(0, 50).join('\n- ')}\n`,
          'add a correction step with update_plan, fix these problems, complete that step, then call submit_result again.',
          { problems: verdict.problems, rejected: true },
        )
      }
      // Accepted: runTask ends the execution and saves the state with its final record.
      state.rejected = undefined
      return { accepted: true, result: verdict.value, ...(summary ? { summary } : {}) }
    },
  })
}

async function readResult(vfs: Vfs, path: string | undefined): Promise<unknown> {
  if (path === undefined)
    throw new ToolError('invalid-input', 'No result given.', 'pass result (JSON) or path (a JSON file holding the result).')
  const text = await vfs.readFile(path, 'utf8')
  if (jsonTextTooDeep(text))
    throw new ToolError(
      'invalid-input',
      `${path} nests arrays or objects deeper than ${MAX_JSON_DEPTH} levels.`,
      `write a flatter result to ${path}, then submit again.`,
    )
  try {
    return JSON.parse(text)
  } catch (error) {
    throw new ToolError(
      'invalid-input',
      `${path} is not valid JSON: ${(error as Error).message}.`,
      `fix ${path} so it holds one JSON value, then submit again.`,
    )
  }
}
