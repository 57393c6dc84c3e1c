import type { Budget, SharedBudget } from 'agent-vfs/agent'
import type { RunVfs } from 'agent-vfs'
import type { HostContext } from '../context.js'
import { asBudgetUsage, readSessionUsage, sumUsage, tighter } from '../records/usage.js'

// The budgets a run is handed (the owner's, the execution's) and what a stopped run adds to the owner's usage.

/**
 * The owner's budget as one execution sees it: what the owner's other sessions spent (from the
 * index) plus this session's other executions (from its records); the execution adds its own.
 */
export function ownerBudget(ctx: HostContext, owner: string, sessionId: string, executionId: string, ws: RunVfs): SharedBudget[] {
  const budget = ctx.settings.budgets.owner
  const index = ctx.index
  if (!budget || !index.usage) return []
  return [
    {
      scope: 'owner',
      budget,
      used: async () => {
        const others = (await index.usage!(owner, sessionId)).total
        const here = (await readSessionUsage(sessionId, ws)).executions.filter(e => e.id !== executionId)
        return asBudgetUsage(here.reduce((sum, e) => sumUsage(sum, e), others))
      },
    },
  ]
}

/** The budget options of one run: the host's and the profile's execution budget (the tighter), and the owner's. */
export function budgetOptions(
  ctx: HostContext,
  fromProfile: Budget | undefined,
  owner: string,
  sessionId: string,
  executionId: string,
  ws: RunVfs,
): { budget?: Budget; sharedBudgets?: SharedBudget[] } {
  const budget = tighter(ctx.settings.budgets.execution, fromProfile)
  const shared = ownerBudget(ctx, owner, sessionId, executionId, ws)
  return { ...(budget ? { budget } : {}), ...(shared.length ? { sharedBudgets: shared } : {}) }
}

/** Stores a session's usage in its owner's entry (after each run), when the index keeps usage. */
export async function recordSessionUsage(ctx: HostContext, owner: string, sessionId: string, ws: RunVfs): Promise<void> {
  if (!ctx.index.setUsage) return
  await ctx.index.setUsage(owner, sessionId, (await readSessionUsage(sessionId, ws)).total)
}
