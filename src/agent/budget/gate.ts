import type { ExecutionRecord } from '../state/execution-records.js'
import { addBudgetUsage, reachedBudget, type Budget, type BudgetExceeded, type BudgetName, type BudgetUsage } from './budget.js'

/**
 * A budget shared with more than this execution (an owner's, over all their sessions): `used`
 * says what was spent outside this execution; the execution's own spending is added to it.
 */
export interface SharedBudget {
  /** Names it in the stop message, e.g. `owner`. */
  scope: string
  budget: Budget
  used(): Promise<BudgetUsage>
}

/** What an execution record says it spent, in budget units. */
export function recordUsage(r: ExecutionRecord): BudgetUsage {
  return {
    tokens: r.usage.totalTokens,
    modelCalls: r.modelCallsStarted ?? r.modelCalls,
    runJsCpuMs: r.runJsCpuMs ?? 0,
    bytesWritten: r.bytesWritten ?? 0,
  }
}

/**
 * Applies an execution's budgets to its record. The counters live in the record, so a resumed
 * run (after a crash or an abort) continues counting from what was stored; with a budget set the
 * task loop stores the record before every model call (see `window-loop.ts`), so a crash cannot
 * lose a call that was started, and replay cannot spend past the budget.
 */
export class BudgetGate {
  /** Tokens left of the tightest budget when it was last checked. */
  private tokensLeft: number | undefined

  constructor(
    private readonly record: ExecutionRecord,
    private readonly budget: Budget | undefined,
    private readonly shared: readonly SharedBudget[] = [],
  ) {}

  /** Whether any budget applies (if not, the task loop stores nothing extra). */
  get active(): boolean {
    return this.budget !== undefined || this.shared.length > 0
  }

  /**
   * The first budget reached, looking at the record and at every shared budget's other spending.
   * `names`: only these figures (before a tool call, what tools spend: a model call's tokens are paid already).
   */
  async reached(names?: readonly BudgetName[]): Promise<BudgetExceeded | undefined> {
    if (!this.active) return undefined
    const own = recordUsage(this.record)
    const hit = reachedBudget(this.budget, own, 'execution', names)
    let left = this.budget?.tokens !== undefined ? this.budget.tokens - own.tokens : undefined
    if (hit) return hit
    for (const s of this.shared) {
      const total = addBudgetUsage(await s.used(), own)
      const over = reachedBudget(s.budget, total, s.scope, names)
      if (over) return over
      if (s.budget.tokens !== undefined) left = Math.min(left ?? Infinity, s.budget.tokens - total.tokens)
    }
    if (!names) this.tokensLeft = left
    return undefined
  }

  /** The most output tokens the next model call may ask for: what is left of the tightest token budget. */
  get maxOutputTokens(): number | undefined {
    return this.tokensLeft === undefined ? undefined : Math.max(1, Math.floor(this.tokensLeft))
  }

  /** What a tool call can spend. */
  static readonly TOOL_FIGURES: readonly BudgetName[] = ['runJsCpuMs', 'bytesWritten']

  /** Counts guest CPU time of a run_js program. */
  addRunJsCpu(ms: number | undefined): void {
    if (typeof ms === 'number' && ms > 0) this.record.runJsCpuMs = (this.record.runJsCpuMs ?? 0) + ms
  }

  /**
   * When a program started now must end: what is left of this execution's `runJsCpuMs` budget
   * (undefined without one). Shared budgets are checked before each tool call, not here.
   */
  programDeadline(): number | undefined {
    const limit = this.budget?.runJsCpuMs
    return limit === undefined ? undefined : Date.now() + Math.max(0, limit - (this.record.runJsCpuMs ?? 0))
  }

  /** Counts bytes a tool call added to the workspace. */
  addBytes(bytes: number): void {
    if (bytes > 0) this.record.bytesWritten = (this.record.bytesWritten ?? 0) + bytes
  }
}
