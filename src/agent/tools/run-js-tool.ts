import { RUN_JS_DESCRIPTION, type RunJsJournal, type RunJsResume } from 'agent-vfs'
import { z } from 'zod'
import type { ProgramApprovals } from '../policy/run-js-view.js'
import { defineTool, ToolError, ToolSuspended, type FetchApproval, type ToolAccess } from './tool.js'
import { traceRunJs } from '../telemetry/spans.js'

/** Why a run_js program failed; `host` when the host could not run it at all (not the program's fault). */
export interface RunJsOutcomeError {
  name: string
  message: string
  line?: number
  host?: true
}

/** What a run_js program produced; the shape `createRunJs(...).run()` resolves to. */
export interface RunJsOutcome {
  success: boolean
  result?: unknown
  logs: readonly unknown[]
  error?: RunJsOutcomeError
  /** Where the program was archived in the workspace. */
  scriptPath?: string
  /** Where a large result was written instead of being returned. */
  resultPath?: string
  bytes?: number
  /** The program waits for a person (a run started with `suspendable`). */
  suspended?: { call: string; request: unknown; journal: RunJsJournal }
  /** Milliseconds the program ran guest code (what a run_js CPU budget counts). */
  cpuMs?: number
}

/** Anything that runs a model-written program against the workspace, e.g. `createRunJs({ vfs })`. */
export interface RunJsRunner {
  run(code: string, options?: { signal?: AbortSignal; suspendable?: boolean; resume?: RunJsResume }): Promise<RunJsOutcome>
}

export { RUN_JS_DESCRIPTION }

/** Options of {@link runJsTool}. */
export interface RunJsToolOptions {
  /** What the model reads about the tool. Default {@link RUN_JS_DESCRIPTION}. */
  description?: string
  /**
   * Declares that the runner's workspace checks the policy on each file operation (what
   * `createWorkspaceTools` builds); otherwise the policy treats a call as touching anything.
   */
  guarded?: boolean
  /** One-shot grants for a resumed program's approved file operation (the view's `ProgramApprovals`). */
  approvals?: ProgramApprovals
  /** Hears every outcome, failed ones too (e.g. to count CPU time). */
  onOutcome?: (outcome: RunJsOutcome) => void
}

/**
 * `run_js`: runs one program (an async function body) with the workspace API. A failed program is a
 * {@link ToolError} whose message carries the error, its line and the last logs, so the model can fix it.
 */
export function runJsTool(runner: RunJsRunner, toolOptions: RunJsToolOptions = {}) {
  const guarded = toolOptions.guarded === true
  const onOutcome = toolOptions.onOutcome
  return defineTool({
    description: toolOptions.description ?? RUN_JS_DESCRIPTION,
    inputSchema: z.object({
      code: z.string().min(1).describe('The program: an async function body in JavaScript or TypeScript. `return` the result.'),
      description: z.string().max(300).optional().describe('What it does, for the log'),
    }),
    access: () => ({ access: 'write', paths: [], ...(guarded ? { perOperation: true } : {}) }),
    async execute({ code }, options) {
      const resume = options.resumeProgram
      if (resume?.approved) toolOptions.approvals?.grant(resume.approved)
      let outcome: RunJsOutcome
      try {
        outcome = await traceRunJs(() =>
          runner.run(code, {
            signal: options.abortSignal,
            suspendable: true,
            ...(resume ? { resume: { journal: resume.journal, answer: resume.answer } } : {}),
          }),
        )
      } finally {
        toolOptions.approvals?.clear()
      }
      onOutcome?.(outcome)
      if (outcome.suspended) throw new ToolSuspended(suspensionOf(outcome.suspended))
      if (!outcome.success) {
        const e: RunJsOutcomeError = outcome.error ?? { name: 'Error', message: 'the program failed' }
        if (e.host) {
          // Not the program's fault: no "fix the program", no retry that cannot help.
          throw new ToolError(
            'unavailable',
            'run_js is unavailable on this host (a fault of the host, not of your program).',
            'do not call run_js again; use the file tools, or tell the user that programs cannot run here.',
          )
        }
        const logs = outcome.logs.length > 0 ? ` Logs: ${JSON.stringify(outcome.logs.slice(-20))}.` : ''
        throw new ToolError(
          'failed',
          `${e.name}: ${e.message}${e.line !== undefined ? ` (line ${e.line})` : ''}.${logs}`,
          'fix the program and call run_js again; test on one file first if unsure.',
          {
            ...(outcome.scriptPath ? { scriptPath: outcome.scriptPath } : {}),
          },
        )
      }
      return outcome
    },
  })
}

/** What a parked program asks, as a pending action: a question (`ask_user`) or an approval (a file operation or a fetch the policy asks for). */
function suspensionOf(s: NonNullable<RunJsOutcome['suspended']>): ToolSuspended['suspension'] {
  const program = { call: s.call, journal: s.journal }
  const r = (s.request ?? {}) as {
    kind?: unknown
    question?: unknown
    options?: unknown
    reason?: unknown
    access?: unknown
    fetch?: unknown
  }
  if (r.kind === 'approval')
    return {
      kind: 'approval',
      reason: typeof r.reason === 'string' ? r.reason : 'the policy asks',
      access: r.access as ToolAccess,
      ...(r.fetch ? { fetch: r.fetch as FetchApproval } : {}),
      program,
    }
  const question = typeof r.question === 'string' ? r.question : `The program asks (${s.call}).`
  const options = Array.isArray(r.options) ? r.options.filter((o): o is string => typeof o === 'string') : undefined
  return { kind: 'question', question, ...(options ? { options } : {}), program }
}
