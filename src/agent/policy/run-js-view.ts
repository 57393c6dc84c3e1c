import { RUN_ROOTS, RunJsSuspension, STATE_ROOT, restrict, VfsError, type RunVfs, type Vfs } from 'agent-vfs'
import { asAccessCheck, type FileOperation, type OperationCheck } from './guarded-vfs.js'
import { evaluateOperation, type PolicyRule } from './policy.js'

/**
 * A view of the workspace's roots in which `/state` (and every root already read-only) cannot
 * change, checking `check` too. Over a run view it is one layer; a plain workspace is first
 * limited to the run roots, each mapped onto itself.
 */
export function stateReadOnly(vfs: Vfs, check?: OperationCheck): RunVfs {
  const hasRoots = (vfs as Partial<RunVfs>).roots !== undefined
  const options = { readOnly: [STATE_ROOT], check: check && asAccessCheck(check) }
  return hasRoots ? (restrict(vfs, options) as RunVfs) : restrict(vfs, { ...options, roots: RUN_ROOTS })
}

/**
 * The workspace a run_js program gets: `/state` read-only, and `rules` applied to each of its file
 * operations (`allow` proceeds; `deny` fails that operation with EACCES; `ask` parks the program
 * on an approval with `approvals`, and without them fails with EACCES pointing to the file tools,
 * which can ask a person). `rules` is read at every operation, so
 * rules saved during the run apply at once. Over a run view, a read passes one layer more than
 * the run view's own.
 */
export function runJsView(vfs: Vfs, rules: () => readonly PolicyRule[], approvals?: ProgramApprovals): RunVfs {
  return stateReadOnly(vfs, policyCheck(rules, 'run_js', approvals))
}

/** What a person approved for a parked program: a file operation, or requests of one method to one origin (fetch-policy.ts). */
export type ProgramGrant = FileOperation | { access: 'fetch'; origin: string; method: string }

/**
 * The approvals of a program's file operations and fetches that the policy routes to a person.
 * With it, an `ask` parks a suspendable program (a `RunJsSuspension` carrying an approval request)
 * instead of failing the operation; a resumed, approved program gets a one-shot grant for exactly
 * that operation ({@link grant}), used up by the first operation that matches it.
 */
export class ProgramApprovals {
  private grants: ProgramGrant[] = []

  /** Lets the next operation `op` pass the `ask` once. */
  grant(op: ProgramGrant): void {
    this.grants.push(op)
  }

  /** Drops the grants not used (the program took another path). */
  clear(): void {
    this.grants = []
  }

  /** True (and the grant is used up) if `op` was granted. */
  take(op: ProgramGrant): boolean {
    const i = this.grants.findIndex(g => keyOf(g) === keyOf(op))
    if (i < 0) return false
    this.grants.splice(i, 1)
    return true
  }
}

function keyOf(g: ProgramGrant): string {
  return g.access === 'fetch' ? `fetch ${g.method} ${g.origin}` : `${g.access} ${g.path}`
}

const FILE_TOOLS = { read: 'read_file, ls, glob or grep', write: 'write_file, edit_file, move or delete' }

/**
 * Checks each file operation against `rules` (read at every operation) and the built-in `/state`
 * guard, with {@link evaluateOperation}; a refusal is an EACCES `VfsError` naming the reason.
 * With no rules it is the `/state` guard alone, which is how the file tools see the workspace.
 */
export function policyCheck(rules: () => readonly PolicyRule[], toolName: string, approvals?: ProgramApprovals): OperationCheck {
  return op => {
    const verdict = evaluateOperation(rules(), toolName, op)
    if (verdict.decision === 'allow') return
    const what = op.access === 'write' ? 'change' : 'read'
    if (verdict.decision === 'deny')
      throw new VfsError('EACCES', op.path, `the policy does not let ${toolName} ${what} this path: ${verdict.reason}`)
    if (approvals) {
      if (approvals.take(op)) return
      throw new RunJsSuspension(
        { kind: 'approval', reason: verdict.reason, access: { access: op.access, paths: [op.path] } },
        `the policy asks a person before anything may ${what} ${op.path} (${verdict.reason})`,
      )
    }
    throw new VfsError(
      'EACCES',
      op.path,
      `the policy asks a person before anything may ${what} this path (${verdict.reason}), and a program cannot wait for an answer: ` +
        `do this step with ${FILE_TOOLS[op.access]}, which can ask`,
    )
  }
}
