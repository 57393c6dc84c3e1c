import type { FinishReason, ModelUsage, ReportedFinishReason, ReportedUsage } from './model.js'

const FINISH_REASONS = new Set<string>(['stop', 'length', 'content-filter', 'tool-calls', 'error', 'interrupted', 'other', 'unknown'])

/** A count as a model reported it: a finite number ≥ 0, anything else (undefined, NaN, an object) is absent. */
const count = (n: unknown): number | undefined => (typeof n === 'number' && Number.isFinite(n) && n >= 0 ? n : undefined)

/**
 * Reads the usage a model of any version reported into {@link ModelUsage}: v2's flat counts
 * (`inputTokens: 12`), v3/v4's nested ones (`inputTokens: { total, noCache, cacheRead, cacheWrite }`,
 * `outputTokens: { total, text, reasoning }`). Missing counts are 0; a missing total is input + output.
 */
export function readUsage(reported: ReportedUsage | undefined): ModelUsage {
  const r = (reported ?? {}) as Record<string, unknown>
  const nested = (v: unknown) => (v !== null && typeof v === 'object' ? (v as Record<string, unknown>) : undefined)
  const input = nested(r.inputTokens)
  const output = nested(r.outputTokens)
  const inputTokens = (input ? count(input.total) : count(r.inputTokens)) ?? 0
  const outputTokens = (output ? count(output.total) : count(r.outputTokens)) ?? 0
  const reasoning = output ? count(output.reasoning) : count(r.reasoningTokens)
  const cached = input ? count(input.cacheRead) : count(r.cachedInputTokens)
  // v3/v4 carry no total: input + output is the total the provider bills.
  const total = (input || output ? undefined : count(r.totalTokens)) ?? inputTokens + outputTokens
  return {
    inputTokens,
    outputTokens,
    totalTokens: total,
    ...(reasoning !== undefined ? { reasoningTokens: reasoning } : {}),
    ...(cached !== undefined ? { cachedInputTokens: cached } : {}),
  }
}

/** Reads a finish reason of any version (v2's string, v3/v4's `{ unified, raw }`); an unknown word is `other`. */
export function readFinishReason(reported: ReportedFinishReason | undefined): FinishReason {
  const word = typeof reported === 'string' ? reported : reported?.unified
  if (word === undefined) return 'unknown'
  return FINISH_REASONS.has(word) ? (word as FinishReason) : 'other'
}

/** Zero usage: what a run has before its first model call. */
export const noUsage = (): ModelUsage => ({ inputTokens: 0, outputTokens: 0, totalTokens: 0 })

/** Adds one call's usage to a sum (in place); the optional counts appear in the sum once any call reported them. */
export function addUsage(sum: ModelUsage, call: ModelUsage): ModelUsage {
  sum.inputTokens += call.inputTokens
  sum.outputTokens += call.outputTokens
  sum.totalTokens += call.totalTokens
  if (call.reasoningTokens !== undefined) sum.reasoningTokens = (sum.reasoningTokens ?? 0) + call.reasoningTokens
  if (call.cachedInputTokens !== undefined) sum.cachedInputTokens = (sum.cachedInputTokens ?? 0) + call.cachedInputTokens
  return sum
}
