import type { z } from 'zod'
import type { Vfs } from 'agent-vfs'
import { describeIssues } from './tool.js'

/**
 * A check run on a result that passed the schema. Return (or resolve to) nothing when the result
 * is fine, else one problem or a list of problems, each concrete enough for the model to fix.
 */
export type ResultCheck<T> = {
  // Method syntax on purpose: a check of a narrower result still fits a `ResultContract` (of `unknown`).
  check(result: T, context: { vfs: Vfs }): void | string | string[] | Promise<void | string | string[]>
}['check']

/** What the caller requires of the task's result; `submit_result` validates against it. */
export interface ResultContract<T = unknown> {
  /** Told to the model: what the result is and where it goes. */
  description?: string
  /** Shape of the result (any zod schema). */
  schema?: z.ZodType<T>
  /** Further checks, run in order after the schema passed. */
  checks?: Array<ResultCheck<T>>
  /**
   * A JSON file holding the result. When set, `submit_result` reads the result from it unless
   * the model passes one inline.
   */
  resultPath?: string
}

/** Outcome of {@link checkResult}. */
export type ContractVerdict<T> = { ok: true; value: T } | { ok: false; problems: string[] }

/** Validates a raw result against a contract: schema first, then every check. */
export async function checkResult<T>(contract: ResultContract<T>, raw: unknown, vfs: Vfs): Promise<ContractVerdict<T>> {
  let value = raw as T
  if (contract.schema) {
    const parsed = contract.schema.safeParse(raw)
    if (!parsed.success) return { ok: false, problems: describeIssues(parsed.error).map(p => `schema: ${p}`) }
    value = parsed.data
  }
  const problems: string[] = []
  for (const [i, check] of (contract.checks ?? []).entries()) {
    try {
      const found = await check(value, { vfs })
      if (typeof found === 'string') problems.push(found)
      else if (Array.isArray(found)) problems.push(...found.map(String))
    } catch (error) {
      problems.push(`check ${i + 1} failed: ${error instanceof Error ? error.message : String(error)}`)
    }
  }
  return problems.length > 0 ? { ok: false, problems } : { ok: true, value }
}
