import { isVfsError, STATE_ROOT, normalizePath, type Vfs } from 'agent-vfs'
import { compileGlob, provideRegexEngine, type CompiledGlob } from 'agent-vfs/internal'
import { RE2JS, RE2JSException } from 're2js'
import { POLICY_PATH } from '../state/paths.js'
import type { ToolAccess } from '../tools/tool.js'

// Policies match globs synchronously, before any workspace search has loaded re2js (see src/vfs/regex-engine.ts).
provideRegexEngine({ RE2JS, RE2JSException })

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
  /**
   * Origins (`https://api.example.com`) a `fetch` rule covers: the rules naming the tool `fetch`
   * decide a run_js program's requests to URLs its fetch allow-list does not hold (fetch-policy.ts).
   * Default: every origin. A rule with origins applies to nothing else.
   */
  origins?: string[]
  /** Shown to the model (deny) or to the person asked (ask). */
  reason?: string
}

/** The decision for one call, and which rule made it. */
export interface PolicyVerdict {
  decision: PolicyDecision
  rule?: PolicyRule
  reason: string
}

const STATE_GUARD: PolicyRule = {
  decision: 'deny',
  access: 'write',
  paths: [STATE_ROOT, `${STATE_ROOT}/**`],
  reason: '/state is kept by the runner: change the plan with update_plan and finish with submit_result',
}

/**
 * Compiled globs by pattern. Calls on directories and globs compile the call's own path too, so
 * the keys come from the model: the cache keeps the most recently used entries only.
 */
const globs = new Map<string, CompiledGlob | null>()
const GLOB_CACHE_ENTRIES = 512

function compiled(pattern: string): CompiledGlob | null {
  let glob = globs.get(pattern)
  if (glob !== undefined) {
    globs.delete(pattern) // re-inserted below: Map order is recency order
  } else {
    try {
      glob = compileGlob(pattern)
    } catch {
      glob = null // an invalid pattern or path matches nothing; the tool reports the error
    }
    if (globs.size >= GLOB_CACHE_ENTRIES) globs.delete(globs.keys().next().value as string)
  }
  globs.set(pattern, glob)
  return glob
}

/** Compiled globs the policy holds now (for tests of its bound). */
export function globCacheSize(): number {
  return globs.size
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
  if (rule.origins) return false // a fetch rule (fetch-policy.ts)
  if (rule.tools && !rule.tools.includes('*') && !rule.tools.includes(toolName)) return false
  if (rule.access && rule.access !== access.access) return false
  const restrictive = rule.decision !== 'allow'
  const unknownPaths = access.access !== 'none' && access.paths.length === 0
  if (rule.paths) {
    const touched = unknownPaths
      ? restrictive
      : access.paths.some(p => rule.paths!.some(g => (restrictive ? mayTouch(g, p) : matches(g, p))))
    if (!touched) return false
  }
  if (rule.exceptPaths) {
    // A call that may touch anything is exempt only from allow rules (it may touch an excepted path).
    if (unknownPaths) return restrictive
    if (access.paths.every(p => rule.exceptPaths!.some(g => matches(g, p)))) return false
  }
  return true
}

/** True when a rule depends on the paths a call touches. */
function namesPaths(rule: PolicyRule): boolean {
  return rule.paths !== undefined || rule.exceptPaths !== undefined
}

export function verdictOf(rule: PolicyRule): PolicyVerdict {
  return { decision: rule.decision, rule, reason: rule.reason ?? `rule ${JSON.stringify(rule)}` }
}

const ALLOW: PolicyVerdict = { decision: 'allow', reason: 'no rule applies' }

/**
 * Decides a call: the built-in guard (tools cannot write `/state`) first, then `rules` in order;
 * without a matching rule the call is allowed. Plan and control tools (`update_plan`,
 * `submit_result`, `ask_user`) are only governed by rules that name them in `tools`, so a broad
 * rule such as "ask before every write" does not block planning.
 *
 * A call whose access is `perOperation` (run_js) is decided as a whole by the rules without
 * `paths`/`exceptPaths` only, whatever their `access` (a program may read and write); the rules
 * with paths apply to each of its file operations instead ({@link evaluateOperation}).
 */
export function evaluatePolicy(
  rules: readonly PolicyRule[],
  toolName: string,
  access: ToolAccess,
  kind: 'work' | 'plan' | 'control' = 'work',
): PolicyVerdict {
  if (access.perOperation) {
    for (const rule of rules) {
      if (namesPaths(rule) || rule.origins || (kind !== 'work' && !rule.tools?.includes(toolName))) continue
      if (rule.tools && !rule.tools.includes('*') && !rule.tools.includes(toolName)) continue
      return verdictOf(rule)
    }
    return ALLOW
  }
  // Calls without named paths get a view with /state read-only instead of the guard.
  const guard = access.paths.length > 0 ? [STATE_GUARD] : []
  for (const rule of [...guard, ...rules]) {
    if (kind !== 'work' && !rule.tools?.includes(toolName)) continue
    if (ruleApplies(rule, toolName, access)) return verdictOf(rule)
  }
  return ALLOW
}

/**
 * Decides one file operation of a `perOperation` tool (a run_js program's `vfs.write`, `vfs.list`
 * …): the `/state` guard, then the rules in order, where the rule that decided the call as a
 * whole stands for its decision (the call runs, so it was allowed or approved) and the other
 * rules without paths are skipped. An `ask` cannot be answered in the middle of a program: the
 * caller fails the operation and points the model to the file tools, which can ask.
 */
export function evaluateOperation(
  rules: readonly PolicyRule[],
  toolName: string,
  op: { access: 'read' | 'write'; path: string },
): PolicyVerdict {
  const whole = evaluatePolicy(rules, toolName, { access: 'write', paths: [], perOperation: true })
  const access: ToolAccess = { access: op.access, paths: [op.path] }
  for (const rule of [STATE_GUARD, ...rules]) {
    if (!namesPaths(rule)) {
      if (rule !== whole.rule) continue
      return whole.decision === 'deny' ? whole : { decision: 'allow', rule, reason: `${toolName} as a whole: ${whole.reason}` }
    }
    if (ruleApplies(rule, toolName, access)) return verdictOf(rule)
  }
  return ALLOW
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

/**
 * The rules of one run: the rules saved by "always allow" answers (read from the workspace once,
 * on first use) before the caller's. run_js's guarded view reads {@link rules} at each operation.
 */
export class RunPolicy {
  private saved: PolicyRule[] | undefined
  private all: readonly PolicyRule[]

  constructor(
    private readonly vfs: Vfs,
    private readonly callerRules: readonly PolicyRule[],
  ) {
    this.all = callerRules
  }

  /** Reads the saved rules, once. */
  async load(): Promise<void> {
    if (this.saved) return
    this.saved = await loadSavedRules(this.vfs)
    this.all = [...this.saved, ...this.callerRules]
  }

  /** Saved rules then the caller's (only the caller's before {@link load}). */
  rules(): readonly PolicyRule[] {
    return this.all
  }

  /** Saves an "always" rule in the workspace; it applies from now on. */
  async save(rule: PolicyRule): Promise<void> {
    await saveRule(this.vfs, rule)
    if (this.saved) {
      this.saved.push(rule)
      this.all = [...this.saved, ...this.callerRules]
    }
  }
}

/** The rule an "always allow" answer saves: this tool on these exact paths (or the tool, if it has none). */
export function allowRuleFor(toolName: string, access: ToolAccess): PolicyRule {
  return access.paths.length > 0
    ? {
        decision: 'allow',
        tools: [toolName],
        paths: access.paths.map(p => normalizePath(p)),
        reason: 'always allowed by the user',
      }
    : { decision: 'allow', tools: [toolName], reason: 'always allowed by the user' }
}
