import { isVfsError, POLICY_PATH, STATE_ROOT, compileGlob, normalizePath, type CompiledGlob, type Vfs } from 'agent-vfs'
import type { ToolAccess } from './tool.js'

/** What a policy decides for a tool call. */
export type PolicyDecision = 'allow' | 'deny' | 'ask'

/**
 * One policy rule. A rule applies to a call when every condition it sets holds; the first rule that
 * applies decides. Example, "ask before writing outside /work":
 * `{ decision: 'ask', access: 'write', exceptPaths: ['/work/**'] }`.
 */
export interface PolicyRule {
  decision: PolicyDecision
  /** Tool names the rule covers (`*` for all). Default: all tools. */
  tools?: string[]
  /** Only calls that read, or only calls that write. Default: both. */
  access?: 'read' | 'write'
  /** Glob patterns; the rule applies when a path the call touches matches one. */
  paths?: string[]
  /** Glob patterns; the rule does not apply when every path the call touches matches one. */
  exceptPaths?: string[]
  /** Shown to the model (deny) or to the person asked (ask). */
  reason?: string
}

/** The decision for one call, and which rule made it. */
export interface PolicyVerdict {
  decision: PolicyDecision
  rule?: PolicyRule
  reason: string
}

export { POLICY_PATH }

const STATE_GUARD: PolicyRule = {
  decision: 'deny',
  access: 'write',
  paths: [STATE_ROOT, `${STATE_ROOT}/**`],
  reason: '/state is kept by the runner: change the plan with update_plan and finish with submit_result',
}

const globs = new Map<string, CompiledGlob | null>()
function compiled(pattern: string): CompiledGlob | null {
  let glob = globs.get(pattern)
  if (glob === undefined) {
    try {
      glob = compileGlob(pattern)
    } catch {
      glob = null // an invalid pattern or path matches nothing; the tool reports the error
    }
    globs.set(pattern, glob)
  }
  return glob
}

function matches(pattern: string, path: string): boolean {
  const glob = compiled(pattern)
  if (!glob) return false
  let p = path
  try {
    p = normalizePath(path)
  } catch {
    // An invalid path fails in the tool with a clear error; here it simply matches nothing.
  }
  return glob.test(p)
}

function isAncestorOrSelf(ancestor: string, path: string): boolean {
  return ancestor === '/' || path === ancestor || path.startsWith(ancestor + '/')
}

/**
 * True when a call on `path` may touch something `pattern` matches: the path matches the pattern,
 * or the path is a directory or glob (grep `/`, glob `/**`, ls -r) whose fixed prefix is an
 * ancestor of, or equal to, the pattern's fixed prefix. A file path cannot be an ancestor of
 * anything, so treating every path this way only widens calls that can reach below it.
 */
function mayTouch(pattern: string, path: string): boolean {
  if (matches(pattern, path)) return true
  const rule = compiled(pattern)
  const call = compiled(path)
  return rule !== null && call !== null && isAncestorOrSelf(call.base, rule.base)
}

/**
 * True when `rule` applies to a call of `toolName` with `access`.
 *
 * Restrictive rules (deny, ask) apply to every call that may touch a path they name: a call on a
 * directory or glob above the rule's paths, and a call that reads or writes without naming its
 * paths (run_js: `paths: []`, it can touch anything), which `exceptPaths` never exempts. Allow
 * rules with `paths` apply only to calls whose named paths match them, so a broad call is never
 * allowed by a narrow allow rule.
 */
export function ruleApplies(rule: PolicyRule, toolName: string, access: ToolAccess): boolean {
  if (rule.tools && !rule.tools.includes('*') && !rule.tools.includes(toolName)) return false
  if (rule.access && rule.access !== access.access) return false
  const restrictive = rule.decision !== 'allow'
  const unknownPaths = access.access !== 'none' && access.paths.length === 0
  if (rule.paths) {
    const touched = unknownPaths
      ? restrictive
      : access.paths.some((p) => rule.paths!.some((g) => (restrictive ? mayTouch(g, p) : matches(g, p))))
    if (!touched) return false
  }
  if (rule.exceptPaths) {
    // A call that may touch anything is exempt only from allow rules (it may touch an excepted path).
    if (unknownPaths) return restrictive
    if (access.paths.every((p) => rule.exceptPaths!.some((g) => matches(g, p)))) return false
  }
  return true
}

/**
 * Decides a call: the built-in guard (tools cannot write `/state`) first, then `rules` in order;
 * without a matching rule the call is allowed. Plan and control tools (`update_plan`,
 * `submit_result`, `ask_user`) are only governed by rules that name them in `tools`, so a broad
 * rule such as "ask before every write" does not block planning.
 */
export function evaluatePolicy(rules: readonly PolicyRule[], toolName: string, access: ToolAccess, kind: 'work' | 'plan' | 'control' = 'work'): PolicyVerdict {
  // Calls without named paths (run_js) get a view with /state read-only instead of the guard.
  const guard = access.paths.length > 0 ? [STATE_GUARD] : []
  for (const rule of [...guard, ...rules]) {
    if (kind !== 'work' && !rule.tools?.includes(toolName)) continue
    if (ruleApplies(rule, toolName, access)) {
      return { decision: rule.decision, rule, reason: rule.reason ?? `rule ${JSON.stringify(rule)}` }
    }
  }
  return { decision: 'allow', reason: 'no rule applies' }
}

/** Rules saved in the workspace by "always allow" answers. */
export async function loadSavedRules(vfs: Vfs): Promise<PolicyRule[]> {
  try {
    const saved = JSON.parse(await vfs.readFile(POLICY_PATH, 'utf8')) as { rules?: PolicyRule[] }
    return Array.isArray(saved.rules) ? saved.rules : []
  } catch (error) {
    if (isVfsError(error, 'ENOENT')) return []
    throw error
  }
}

/** Appends a rule to the saved rules. */
export async function saveRule(vfs: Vfs, rule: PolicyRule): Promise<void> {
  const rules = await loadSavedRules(vfs)
  rules.push(rule)
  await vfs.writeFile(POLICY_PATH, JSON.stringify({ rules }, null, 2))
}

/** The rule an "always allow" answer saves: this tool on these exact paths (or the tool, if it has none). */
export function allowRuleFor(toolName: string, access: ToolAccess): PolicyRule {
  return access.paths.length > 0
    ? { decision: 'allow', tools: [toolName], paths: access.paths.map((p) => normalizePath(p)), reason: 'always allowed by the user' }
    : { decision: 'allow', tools: [toolName], reason: 'always allowed by the user' }
}
