/**
 * Budgets: hard stops on what an execution (or everything an owner runs) may spend. Pure values
 * and arithmetic; the gate that applies them to a running execution is `gate.ts`.
 */

/** What a budget caps. Every field is optional: a missing one is unlimited. */
export interface Budget {
  /** Model tokens (input + output, as the provider reports them). */
  tokens?: number
  /** Model calls started (a failed call counts too). */
  modelCalls?: number
  /** Milliseconds run_js programs spent running guest code. */
  runJsCpuMs?: number
  /** Bytes the execution's tool calls added to the workspace (file tools and run_js). */
  bytesWritten?: number
}

/** Which figure of a {@link Budget}. */
export type BudgetName = keyof Budget

/** What has been spent, in the units of {@link Budget}. */
export interface BudgetUsage {
  tokens: number
  modelCalls: number
  runJsCpuMs: number
  bytesWritten: number
}

/** A budget that was reached: whose (`execution`, `owner`, …), which figure, its limit and what was used. */
export interface BudgetExceeded {
  scope: string
  budget: BudgetName
  limit: number
  used: number
}

export const BUDGET_NAMES: readonly BudgetName[] = ['tokens', 'modelCalls', 'runJsCpuMs', 'bytesWritten']

/** Nothing spent. */
export const noUsage = (): BudgetUsage => ({ tokens: 0, modelCalls: 0, runJsCpuMs: 0, bytesWritten: 0 })

/** The sum of two usages. */
export function addBudgetUsage(a: BudgetUsage, b: Partial<BudgetUsage>): BudgetUsage {
  return {
    tokens: a.tokens + (b.tokens ?? 0),
    modelCalls: a.modelCalls + (b.modelCalls ?? 0),
    runJsCpuMs: a.runJsCpuMs + (b.runJsCpuMs ?? 0),
    bytesWritten: a.bytesWritten + (b.bytesWritten ?? 0),
  }
}

/** The first figure of `budget` that `used` has reached (a budget of 10 calls is reached at the 10th). */
export function reachedBudget(
  budget: Budget | undefined,
  used: BudgetUsage,
  scope: string,
  names: readonly BudgetName[] = BUDGET_NAMES,
): BudgetExceeded | undefined {
  if (!budget) return undefined
  for (const name of names) {
    const limit = budget[name]
    if (limit !== undefined && used[name] >= limit) return { scope, budget: name, limit, used: used[name] }
  }
  return undefined
}

/** Checks a budget given by a caller: every figure a finite number ≥ 0 (or absent). */
export function checkBudget(budget: unknown, where: string): Budget | undefined {
  if (budget === undefined) return undefined
  if (typeof budget !== 'object' || budget === null) throw new TypeError(`${where} must be an object such as { tokens: 100000 }`)
  for (const [name, value] of Object.entries(budget)) {
    if (!BUDGET_NAMES.includes(name as BudgetName)) throw new TypeError(`${where}.${name} is not a budget: use ${BUDGET_NAMES.join(', ')}`)
    if (value !== undefined && (typeof value !== 'number' || !(value >= 0)))
      throw new TypeError(`${where}.${name} must be a number ≥ 0 (leave it out for no limit)`)
  }
  return budget as Budget
}

const UNITS: Record<BudgetName, string> = {
  tokens: 'tokens',
  modelCalls: 'model calls',
  runJsCpuMs: 'ms of run_js CPU time',
  bytesWritten: 'bytes written',
}

/** The message a run stopped by a budget ends with: which budget, its figures, and what to do. */
export function budgetMessage(e: BudgetExceeded): string {
  return (
    `The ${e.scope} budget of ${e.limit} ${UNITS[e.budget]} is reached (${Math.round(e.used)} used): the run stopped before going over. ` +
    `Raise the ${e.scope} budget (${e.budget}) and resume the execution to continue from its last checkpoint.`
  )
}
