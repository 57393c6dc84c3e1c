import { checkBudget } from 'agent-vfs/agent'
import type { SessionHost } from '../host-api.js'
import type { HostParts } from './host-parts.js'
import { idOf } from '../session-ref.js'
import { readSessionUsage, zeroUsage, type HostBudgets } from '../records/usage.js'

/** The host's usage reading: a session's (from its execution records) and an owner's (from the owner index). */
export function usageMethods(parts: HostParts): Pick<SessionHost, 'usage' | 'ownerUsage'> {
  const { ctx } = parts
  return {
    async usage(session) {
      const { ws } = await parts.open(session)
      return readSessionUsage(idOf(session), ws)
    },
    async ownerUsage(owner) {
      if (!ctx.index.usage) return { owner, total: zeroUsage(), sessions: [] }
      return { owner, ...(await ctx.index.usage(owner)) }
    },
  }
}

/** Checks a host's budgets (each figure a number ≥ 0 or absent). */
export function checkHostBudgets(budgets: HostBudgets | undefined): HostBudgets {
  if (budgets === undefined) return {}
  return {
    ...(checkBudget(budgets.execution, 'budgets.execution') ? { execution: budgets.execution } : {}),
    ...(checkBudget(budgets.owner, 'budgets.owner') ? { owner: budgets.owner } : {}),
  }
}
