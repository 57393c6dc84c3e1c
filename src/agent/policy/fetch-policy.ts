import { RunJsSuspension, type RunJsFetch } from 'agent-vfs'
import type { FetchApproval } from '../tools/tool.js'
import { verdictOf, type PolicyRule, type PolicyVerdict } from './policy.js'
import type { ProgramApprovals } from './run-js-view.js'

/**
 * The tool name policy rules use for a run_js program's requests to URLs its fetch allow-list does
 * not hold: `{ decision: 'ask', tools: ['fetch'], reason: 'a person approves new hosts' }`.
 */
export const FETCH_POLICY_TOOL = 'fetch'

/**
 * Decides a program's request to a URL on no fetch rule: the first policy rule that names `fetch`
 * in `tools` (and, if it sets `origins`, the request's origin) decides; with none, it is refused,
 * as without a policy. Broad rules (no `tools`, or `*`) never open the network.
 */
export function evaluateFetch(rules: readonly PolicyRule[], request: Pick<FetchApproval, 'origin'>): PolicyVerdict {
  for (const rule of rules) {
    if (!rule.tools?.includes(FETCH_POLICY_TOOL)) continue
    if (rule.origins && !rule.origins.includes(request.origin)) continue
    return verdictOf(rule)
  }
  return { decision: 'deny', reason: `no policy rule lets programs fetch from ${request.origin}` }
}

/**
 * The `ask` of a program's fetch (`createRunJs({ fetch: { allow, ask } })`) decided by the policy:
 * `allow` and `deny` answer at once; `ask` parks the program on an approval (a `RunJsSuspension`
 * with the request), and the resumed, approved program passes once ({@link ProgramApprovals}).
 * `rules` is read at every request, so rules saved by "always" answers apply at once.
 */
export function policyFetchAsk(rules: () => readonly PolicyRule[], approvals: ProgramApprovals): NonNullable<RunJsFetch['ask']> {
  return request => {
    const verdict = evaluateFetch(rules(), request)
    if (verdict.decision !== 'ask') return verdict.decision
    if (approvals.take({ access: 'fetch', origin: request.origin, method: request.method })) return 'allow'
    const fetch: FetchApproval = { url: request.url, origin: request.origin, method: request.method }
    throw new RunJsSuspension(
      { kind: 'approval', reason: verdict.reason, access: { access: 'none', paths: [] }, fetch },
      `the policy asks a person before this program may ${request.method} ${request.origin} (${verdict.reason})`,
    )
  }
}

/** The rule an "always" answer to a fetch approval saves: this origin, from now on. */
export function fetchAllowRule(fetch: FetchApproval): PolicyRule {
  return { decision: 'allow', tools: [FETCH_POLICY_TOOL], origins: [fetch.origin], reason: 'always allowed by the user' }
}
