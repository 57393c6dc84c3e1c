import { listExecutionIds, readExecution, type Budget, type BudgetUsage, type ExecutionRecord } from 'agent-vfs/agent'
import type { RunVfs, VfsUsage } from 'agent-vfs'

/**
 * Usage per execution, session and owner, and the budgets a session host applies. An execution's
 * figures are in its record (durable in the workspace); a session's are the sum of its executions;
 * an owner's are in the owner index (each session's sum, stored when a run stops; deleted sessions
 * stay counted), which is what the owner's budget checks.
 */

/** What was spent: tokens as the models reported them, calls, run_js CPU time, bytes written. */
export interface UsageTotals {
  inputTokens: number
  outputTokens: number
  totalTokens: number
  modelCalls: number
  toolCalls: number
  runJsCpuMs: number
  bytesWritten: number
}

/** One execution's usage, as `GET /sessions/{id}/usage` lists it. */
export interface ExecutionUsage extends UsageTotals {
  id: string
  status: ExecutionRecord['status']
  /** The budget that stopped it, while it is stopped. */
  budgetExceeded?: ExecutionRecord['budgetExceeded']
}

/** A session's usage: the sum, and each execution's. */
export interface SessionUsage {
  sessionId: string
  total: UsageTotals
  executions: ExecutionUsage[]
  /** Bytes the session stores now: its files, and its history (what writes replaced, kept for diff and undo). Both count against the owner's `maxBytes`. */
  storage: { files: number; history: number }
}

/** What a workspace charges its owner's `maxBytes`: its files and its history. */
export const storedBytes = (usage: VfsUsage): number => usage.bytes + (usage.historyBytes ?? 0)

/** An owner's usage: the sum over every session they ran (deleted ones included), and each live session's. */
export interface OwnerUsage {
  owner: string
  total: UsageTotals
  sessions: Array<{ id: string; total: UsageTotals }>
}

/** The budgets of a host (`SessionHostOptions.budgets`); each figure unlimited when absent. */
export interface HostBudgets {
  /** Every execution's, capped further by a profile's `ExecutionSetup.budget` (the tighter figure applies). */
  execution?: Budget
  /** Everything one owner's sessions spend together. */
  owner?: Budget
}

export const zeroUsage = (): UsageTotals => ({
  inputTokens: 0,
  outputTokens: 0,
  totalTokens: 0,
  modelCalls: 0,
  toolCalls: 0,
  runJsCpuMs: 0,
  bytesWritten: 0,
})

/** The sum of two totals. */
export function sumUsage(a: UsageTotals, b: Partial<UsageTotals>): UsageTotals {
  const out = { ...a }
  for (const k of Object.keys(out) as Array<keyof UsageTotals>) out[k] += Number(b[k] ?? 0) || 0
  return out
}

function executionUsage(r: ExecutionRecord): ExecutionUsage {
  return {
    id: r.id,
    status: r.status,
    inputTokens: r.usage.inputTokens,
    outputTokens: r.usage.outputTokens,
    totalTokens: r.usage.totalTokens,
    // Started (failed calls too): the figure budgets count.
    modelCalls: r.modelCallsStarted ?? r.modelCalls,
    toolCalls: r.toolCalls,
    runJsCpuMs: r.runJsCpuMs ?? 0,
    bytesWritten: r.bytesWritten ?? 0,
    ...(r.budgetExceeded ? { budgetExceeded: r.budgetExceeded } : {}),
  }
}

/** A session's usage, read from its execution records. */
export async function readSessionUsage(sessionId: string, ws: RunVfs): Promise<SessionUsage> {
  const executions: ExecutionUsage[] = []
  for (const id of await listExecutionIds(ws)) {
    const r = await readExecution(ws, id)
    if (r) executions.push(executionUsage(r))
  }
  const stored = ws.usage()
  return {
    sessionId,
    total: executions.reduce((sum, e) => sumUsage(sum, e), zeroUsage()),
    executions,
    storage: { files: stored.bytes, history: stored.historyBytes ?? 0 },
  }
}

/** In budget units. */
export const asBudgetUsage = (u: UsageTotals): BudgetUsage => ({
  tokens: u.totalTokens,
  modelCalls: u.modelCalls,
  runJsCpuMs: u.runJsCpuMs,
  bytesWritten: u.bytesWritten,
})

/** The tighter of two budgets, figure by figure. */
export function tighter(a: Budget | undefined, b: Budget | undefined): Budget | undefined {
  if (!a || !b) return a ?? b
  const out: Budget = { ...a }
  for (const [k, v] of Object.entries(b) as Array<[keyof Budget, number | undefined]>)
    if (v !== undefined) out[k] = out[k] === undefined ? v : Math.min(out[k]!, v)
  return out
}
