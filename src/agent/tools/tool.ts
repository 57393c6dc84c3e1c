import { z } from 'zod'
import { isVfsError, type RunJsJournal, type RunJsResumeAnswer } from 'agent-vfs'

/** What the caller of a tool passes besides the input (the AI SDK passes the same names). */
export interface ToolCallOptions {
  toolCallId?: string
  abortSignal?: AbortSignal
  /** A suspended run_js program to continue: its journal and the person's answer (runTask passes it). */
  resumeProgram?: ProgramResume
}

/** What a suspended run_js program needs to continue (kept in its pending action). */
export interface ProgramResume {
  journal: RunJsJournal
  answer: RunJsResumeAnswer
  /** The file operation (or the fetch of a new origin) the person approved, granted once to the resumed program. */
  approved?: { access: 'read' | 'write'; path: string } | ({ access: 'fetch' } & FetchApproval)
}

/** A program's request to a URL its fetch allow-list does not hold, which the policy asks a person about. */
export interface FetchApproval {
  url: string
  /** What an approval lets through (for this program; an "always" answer saves a rule for it). */
  origin: string
  method: string
}

/**
 * Thrown by a tool whose work waits for a person (a run_js program that asked): runTask turns it
 * into a durable pending action, as it does for `ask_user` and policy approvals.
 */
export class ToolSuspended extends Error {
  override readonly name = 'ToolSuspended'
  constructor(
    readonly suspension:
      | { kind: 'question'; question: string; options?: string[]; program: ProgramSuspension }
      | { kind: 'approval'; reason: string; access: ToolAccess; fetch?: FetchApproval; program: ProgramSuspension },
  ) {
    super('the tool waits for a person')
  }
}

/** A parked run_js program, as its pending action keeps it. */
export interface ProgramSuspension {
  /** The program's call that asked (`external_ask_user`, `vfs.write` …). */
  call: string
  journal: RunJsJournal
}

/** How a call touches the workspace, for policy rules. */
export interface ToolAccess {
  access: 'read' | 'write' | 'none'
  /** Workspace paths the call reads or changes (both ends of a move). */
  paths: string[]
  /**
   * The tool names no paths but has the policy checked on each file operation it makes (run_js
   * through its guarded workspace view). Only rules without `paths`/`exceptPaths` decide the call
   * itself; a tool that names no paths without this flag is treated as touching anything.
   */
  perOperation?: boolean
}

/**
 * What a successful call does to the execution besides returning its result. runTask acts on this,
 * never on a tool's name. `suspends`: the call is not run but put to a person; its input, parsed by
 * the tool's schema, is the question (`{ question, options? }`) and the answer is its result.
 * `checkpoints`: a success is an accepted plan revision; it is recorded as a checkpoint and ends the
 * window. `completes`: a success is the accepted result (`{ accepted: true, result, summary? }`) and
 * ends the execution.
 */
export type ToolEffect = 'suspends' | 'checkpoints' | 'completes'

/**
 * A tool in the shape the AI SDK (`tool({ description, inputSchema, execute })`) and Mastra
 * accept. `execute` validates its input itself, so it is safe to call directly; errors are
 * {@link ToolError}s whose message tells the model what to do next.
 */
export interface AgentTool<I = unknown, O = unknown> {
  description: string
  inputSchema: z.ZodType<I>
  execute(input: I, options?: ToolCallOptions): Promise<O>
  /** `work` tools count as progress for the plan rules; `plan` and `control` tools do not. */
  kind: 'work' | 'plan' | 'control'
  /** Which paths a call reads or writes; policy rules match on it. */
  access(input: I): ToolAccess
  /** What a call does to the execution; absent for tools that only return a result. */
  effect?: ToolEffect
}

/** A set of tools by name, as passed to a model. */
export type ToolSet = Record<string, AgentTool>

/** Machine-readable reasons a tool call failed. Plan rule violations use the rule's name. */
export type ToolErrorCode =
  | 'invalid-input'
  | 'not-found'
  | 'exists'
  | 'is-directory'
  | 'not-directory'
  | 'not-empty'
  | 'permission'
  | 'conflict'
  | 'quota'
  | 'no-match'
  | 'several-matches'
  | 'stale'
  | 'not-read'
  | 'too-large'
  | 'unsafe-pattern'
  | 'timeout'
  | 'denied'
  | 'failed'
  | 'plan-rule'
  | 'result-rejected'
  | 'unavailable'

/**
 * A failed tool call. `message` says what went wrong and ends with what to do next; runTask
 * returns it to the model as the tool's result.
 */
export class ToolError extends Error {
  override readonly name = 'ToolError'
  constructor(
    readonly code: ToolErrorCode,
    what: string,
    readonly next: string,
    /** Extra structured detail (problems of a rejected result, the broken plan rule). */
    readonly detail?: Record<string, unknown>,
  ) {
    super(`${what} Next: ${next}`)
  }
}

const vfsCodes: Record<string, [ToolErrorCode, string]> = {
  ENOENT: ['not-found', 'check the path with ls or glob, then retry with an existing path.'],
  EEXIST: ['exists', 'choose another path or delete the existing entry first.'],
  EISDIR: ['is-directory', 'the path is a directory: use ls to see its files.'],
  ENOTDIR: ['not-directory', 'a parent of the path is a file; choose a path under a directory.'],
  ENOTEMPTY: ['not-empty', 'pass recursive: true to delete the directory with its contents.'],
  EACCES: ['permission', 'write only under /work or /outputs; /context and /skills are read-only.'],
  EINVAL: ['invalid-input', 'use an absolute path such as /work/notes.md (no "..", no backslashes).'],
  ECONFLICT: ['conflict', 'the file changed meanwhile: read it again, then retry.'],
  EQUOTA: ['quota', 'delete files you no longer need, then retry.'],
}

/** Turns any error thrown inside a tool into a {@link ToolError} the model can act on. */
export function toToolError(error: unknown): ToolError {
  if (isToolError(error)) return error
  if (isVfsError(error)) {
    const [code, next] = vfsCodes[error.code] ?? ['failed', 'retry once; if it fails again, try another approach.']
    return new ToolError(code, `${error.code}: ${error.detail}${error.path === undefined ? '' : ` (${error.path})`}.`, next)
  }
  const message = error instanceof Error ? error.message : String(error)
  return new ToolError('failed', `The tool failed: ${message}.`, 'retry once; if it fails again, try another approach.')
}

/** True for a {@link ToolError}. */
export function isToolError(error: unknown): error is ToolError {
  return error instanceof ToolError
}

/** Formats zod issues as `field: problem` lines. */
export function describeIssues(error: z.ZodError): string[] {
  return error.issues.map(issue => `${issue.path.length > 0 ? issue.path.join('.') : '(input)'}: ${issue.message}`)
}

interface ToolSpec<S extends z.ZodType, O> {
  description: string
  inputSchema: S
  kind?: AgentTool['kind']
  effect?: ToolEffect
  access?: (input: z.output<S>) => ToolAccess
  execute(input: z.output<S>, options: ToolCallOptions): Promise<O>
}

/**
 * Builds an {@link AgentTool}: input is parsed with the schema (a mismatch is an `invalid-input`
 * error listing the fields), and every thrown error becomes a {@link ToolError}.
 */
export function defineTool<S extends z.ZodType, O>(spec: ToolSpec<S, O>): AgentTool<z.output<S>, O> {
  const parse = (input: unknown): z.output<S> => {
    const parsed = spec.inputSchema.safeParse(input)
    if (!parsed.success) {
      throw new ToolError(
        'invalid-input',
        `Invalid input: ${describeIssues(parsed.error).join('; ')}.`,
        'fix these fields and call the tool again.',
      )
    }
    return parsed.data
  }
  return {
    description: spec.description,
    inputSchema: spec.inputSchema as unknown as z.ZodType<z.output<S>>,
    kind: spec.kind ?? 'work',
    ...(spec.effect ? { effect: spec.effect } : {}),
    access: input => {
      try {
        return spec.access ? spec.access(parse(input)) : { access: 'none', paths: [] }
      } catch {
        return { access: 'none', paths: [] }
      }
    },
    async execute(input, options = {}) {
      try {
        return await spec.execute(parse(input), options)
      } catch (error) {
        if (error instanceof ToolSuspended) throw error // not a failure: runTask makes it a pending action
        throw toToolError(error)
      }
    },
  }
}
