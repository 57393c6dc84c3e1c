import { isVfsError, type Vfs } from 'agent-vfs'
import { PLAN_PATH } from './paths.js'
import { z } from 'zod'
import { ToolError } from '../tools/tool.js'

/** Where the current execution's plan lives. */

/** Status of one plan step. */
export type StepStatus = 'pending' | 'in_progress' | 'completed'

/** One step of a plan. */
export interface PlanStep {
  /** Short stable id, e.g. `extract`; the same step keeps its id across updates. */
  id: string
  title: string
  status: StepStatus
  notes?: string
}

/** The plan as stored in `/state/plan.json`. Every successful update is a new revision and a checkpoint. */
export interface Plan {
  executionId: string
  revision: number
  steps: PlanStep[]
  updatedAt: number
}

/** The rules `update_plan` enforces, by name; a violation is a tool error naming the rule. */
export const PLAN_RULES = {
  'plan-first': 'a task with a result contract must make a plan (update_plan) before any other tool call',
  'unique-step-ids': 'every step needs a distinct, non-empty id',
  'new-step-not-completed': 'a new step cannot start as completed',
  'one-completion-per-update': 'at most one step can become completed per update',
  'work-before-completion': 'completing a step needs at least one non-plan tool call since the previous plan update',
  'completed-is-final': 'a completed step cannot be removed or reopened',
  'plan-must-change': 'an update must change something (a status, a step, a title or notes)',
  'plan-complete': 'submit_result needs a plan whose every step is completed',
} as const

/** Name of a plan rule. */
export type PlanRule = keyof typeof PLAN_RULES

/** The input schema of `update_plan`. */
export const planStepsSchema = z.object({
  steps: z
    .array(
      z.object({
        id: z.string().min(1).max(64),
        title: z.string().min(1).max(300),
        status: z.enum(['pending', 'in_progress', 'completed']),
        notes: z.string().max(4000).optional(),
      }),
    )
    .min(1)
    .max(100)
    .describe('The whole plan: every step, in order, with its current status'),
})

/** A broken plan rule, as a tool error the model can act on. */
export function planRuleError(rule: PlanRule, detail: string, next: string): ToolError {
  return new ToolError('plan-rule', `Plan rule "${rule}" broken: ${PLAN_RULES[rule]}. ${detail}`, next, { rule })
}

/** Outcome of a successful update. */
export interface PlanUpdate {
  plan: Plan
  /** The step this update completed, if any. */
  completed?: PlanStep
}

/**
 * Owns one execution's plan: validates updates against {@link PLAN_RULES}, counts the work done
 * since the last update and writes each accepted revision to `/state/plan.json`.
 */
export class PlanController {
  private current: Plan | undefined
  private work = 0
  /**
   * Called with each accepted revision in the same tick as the plan's own write, so that what it
   * writes (runTask's checkpoint) joins the plan in one atomic commit. The update settles when
   * both are durable.
   */
  onAccept?: (plan: Plan, previous: Plan | undefined) => Promise<unknown>

  constructor(
    private readonly vfs: Vfs,
    readonly executionId: string,
    private readonly path = PLAN_PATH,
  ) {}

  /** Loads the stored plan if it belongs to this execution. */
  async load(): Promise<Plan | undefined> {
    try {
      const plan = JSON.parse(await this.vfs.readFile(this.path, 'utf8')) as Plan
      this.current = plan.executionId === this.executionId ? plan : undefined
    } catch (error) {
      if (!isVfsError(error, 'ENOENT')) throw error
      this.current = undefined
    }
    return this.current
  }

  /** The current plan, if one was made. */
  get plan(): Plan | undefined {
    return this.current
  }

  /** True when a plan exists and every step is completed. */
  get complete(): boolean {
    return this.current !== undefined && this.current.steps.every(s => s.status === 'completed')
  }

  /** Non-plan tool calls that succeeded since the last accepted update. */
  get workSinceUpdate(): number {
    return this.work
  }

  /** Restores the count of work since the last update, e.g. when a suspended window continues. */
  restoreWork(count: number): void {
    this.work = Number.isInteger(count) && count > 0 ? count : 0
  }

  /** Counts one successful non-plan tool call. */
  noteWork(): void {
    this.work++
  }

  /** Checks `steps` against the rules and, if they hold, stores them as the next revision. */
  async update(steps: PlanStep[]): Promise<PlanUpdate> {
    const before = new Map((this.current?.steps ?? []).map(s => [s.id, s]))
    const ids = new Set<string>()
    for (const s of steps) {
      if (ids.has(s.id))
        throw planRuleError('unique-step-ids', `The id "${s.id}" appears twice.`, 'give every step its own id and call update_plan again.')
      ids.add(s.id)
    }
    const completedNow: PlanStep[] = []
    for (const s of steps) {
      const old = before.get(s.id)
      if (!old && s.status === 'completed') {
        throw planRuleError(
          'new-step-not-completed',
          `Step "${s.id}" is new but marked completed.`,
          `add it as pending or in_progress, do the work with tools, then complete it in a later update.`,
        )
      }
      if (old?.status === 'completed' && s.status !== 'completed') {
        throw planRuleError(
          'completed-is-final',
          `Step "${s.id}" was completed and is now ${s.status}.`,
          'keep it completed; add a new step for further work.',
        )
      }
      if (old && old.status !== 'completed' && s.status === 'completed') completedNow.push(s)
    }
    for (const old of before.values()) {
      if (old.status === 'completed' && !ids.has(old.id)) {
        throw planRuleError(
          'completed-is-final',
          `Completed step "${old.id}" is missing from the update.`,
          'send the whole plan, completed steps included.',
        )
      }
    }
    if (completedNow.length > 1) {
      throw planRuleError(
        'one-completion-per-update',
        `This update completes ${completedNow.map(s => `"${s.id}"`).join(', ')}.`,
        `complete only "${completedNow[0].id}" now; complete the others in later updates, each after its own work.`,
      )
    }
    if (completedNow.length === 1 && this.work === 0) {
      throw planRuleError(
        'work-before-completion',
        `No tool call did work since the last plan update, so "${completedNow[0].id}" cannot be completed yet.`,
        'do (or verify) the step with a tool call first, e.g. read_file of its output, then update the plan again.',
      )
    }
    if (this.current && sameSteps(this.current.steps, steps)) {
      throw planRuleError(
        'plan-must-change',
        'The plan is identical to the current one.',
        'continue with the next step using tools, and update the plan when a status changes.',
      )
    }
    const plan: Plan = {
      executionId: this.executionId,
      revision: (this.current?.revision ?? 0) + 1,
      steps: steps.map(s => ({ id: s.id, title: s.title, status: s.status, ...(s.notes ? { notes: s.notes } : {}) })),
      updatedAt: Date.now(),
    }
    const write = this.vfs.writeFile(this.path, JSON.stringify(plan, null, 2))
    const accepted = this.onAccept?.(plan, this.current)
    await Promise.all([write, accepted])
    this.current = plan
    this.work = 0
    return { plan, completed: completedNow[0] }
  }
}

function sameSteps(a: PlanStep[], b: PlanStep[]): boolean {
  return (
    a.length === b.length &&
    a.every((s, i) => s.id === b[i].id && s.title === b[i].title && s.status === b[i].status && (s.notes ?? '') === (b[i].notes ?? ''))
  )
}
