import { budgetMessage, type BudgetExceeded } from '../budget/budget.js'
import type { ExecutionContext, WindowEnd } from './execution-context.js'

/**
 * Ends the run because a budget was reached: `interrupted` (so it can be resumed once the budget is
 * raised) with the error `budget-exceeded` naming the budget and its figures. Like every end, its
 * events and the record share one commit.
 */
export async function stopOnBudget(ctx: ExecutionContext, over: BudgetExceeded): Promise<WindowEnd> {
  const r = ctx.recorder.record
  const message = budgetMessage(over)
  r.status = 'interrupted'
  r.error = { code: 'budget-exceeded', message }
  r.budgetExceeded = over
  await ctx.recorder.emit({ type: 'budget-exceeded', message, ...over })
  await ctx.recorder.emit({ type: 'execution-end', status: 'interrupted', error: r.error })
  await ctx.recorder.save()
  return { kind: 'interrupted' }
}
