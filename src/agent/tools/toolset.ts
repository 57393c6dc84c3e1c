import type { RunJsFetch, RunJsTool, RunVfs, Vfs } from 'agent-vfs'
import { z } from 'zod'
import { policyFetchAsk } from '../policy/fetch-policy.js'
import { guardVfs } from '../policy/guarded-vfs.js'
import type { PolicyRule } from '../policy/policy.js'
import { askUserTool, programAskUser, type AskUser } from './ask-tool.js'
import { bashTool, type BashSlot } from './bash-tool.js'
import type { FunctionToolSpec } from '../model/model.js'
import { lsTool, readFileTool } from './read-tools.js'
import { runJsTool, type RunJsOutcome, type RunJsRunner } from './run-js-tool.js'
import { policyCheck, ProgramApprovals, runJsView, stateReadOnly } from '../policy/run-js-view.js'
import { globTool, grepTool } from './search-tools.js'
import type { ToolSet } from './tool.js'
import { fileToolContext, type ReadLedger, type ToolLimits } from './tool-context.js'
import { deleteTool, editFileTool, mkdirTool, moveTool, writeFileTool } from './write-tools.js'

/**
 * Makes the run_js runner from the workspace view it must use and the tools programs get
 * (`(view, tools) => createRunJs({ vfs: view, tools })`; `tools` holds `ask_user`, with which a
 * program asks the user and waits). A factory, not a runner: a runner made beforehand holds a
 * workspace in which a program could write `/state` (and grant itself approvals) or escape the policy.
 * `policy.askFetch` routes a program's fetch of a URL on no fetch rule to the policy (`createRunJs({
 * fetch: { allow, ask: policy.askFetch } })`): rules naming the tool `fetch` allow, deny or ask.
 */
export type RunJsSlot = (vfs: RunVfs, tools: Record<string, RunJsTool>, policy: RunJsSlotPolicy) => RunJsRunner

/** What the policy gives a run_js runner besides its workspace view (see {@link RunJsSlot}). */
export interface RunJsSlotPolicy {
  /** A fetch `ask` decided by the policy's `fetch` rules; an `ask` parks the program on an approval. */
  askFetch: NonNullable<RunJsFetch['ask']>
}

/** Options of {@link createWorkspaceTools}. */
export interface WorkspaceToolsOptions {
  vfs: Vfs
  limits?: Partial<ToolLimits>
  /** Share one ledger between tool sets of the same execution. */
  reads?: ReadLedger
  /** Adds `run_js`. The factory receives a view of the workspace in which /state is read-only and `policy` holds. */
  runJs?: RunJsSlot
  /**
   * Policy rules applied to each file operation of a run_js program (see `evaluateOperation`);
   * read at every operation. {@link runTask} passes its rules; deciding each tool call as a whole
   * stays the caller's job.
   */
  policy?: () => readonly PolicyRule[]
  /** Hears every run_js outcome (the task loop counts its CPU time against the budget). */
  onRunJs?: (outcome: RunJsOutcome) => void
  /** Adds `ask_user`, answered by this function. */
  askUser?: AskUser
  /**
   * Adds `bash`: a factory given the view command lines must use (`(view) => createBash({ vfs: view })`
   * of `agent-vfs/bash`), with /state read-only and `policy` applied to each file operation.
   */
  bash?: BashSlot
  /** The deadline of each bash command line (ms since the epoch), read at every call. */
  bashDeadline?: () => number | undefined
  /** Hears how long each bash command line ran. */
  onBash?: (ms: number) => void
}

/**
 * The workspace tools (`ls`, `read_file`, `write_file`, `edit_file`, `move`, `delete`, `mkdir`,
 * `glob`, `grep`, and `run_js` / `bash` / `ask_user` when configured), ready to hand to the AI SDK's
 * `generateText({ tools })` or to {@link runTask}.
 */
export function createWorkspaceTools(options: WorkspaceToolsOptions): ToolSet {
  if (options.runJs !== undefined && typeof options.runJs !== 'function') {
    throw new TypeError(
      'runJs must be a factory such as (view) => createRunJs({ vfs: view }): a runner made beforehand holds a workspace in which programs could write /state',
    )
  }
  // The runner's own tools keep /state; the file tools the model drives can only read it.
  const ctx = fileToolContext(guardVfs(options.vfs, policyCheck(noRules, 'the file tools')), options.limits, options.reads)
  const tools: ToolSet = {
    ls: lsTool(ctx),
    read_file: readFileTool(ctx),
    write_file: writeFileTool(ctx),
    edit_file: editFileTool(ctx),
    move: moveTool(ctx),
    delete: deleteTool(ctx),
    mkdir: mkdirTool(ctx),
    glob: globTool(ctx),
    grep: grepTool(ctx),
  }
  if (options.runJs) {
    // A file operation or a fetch the policy asks for parks the program until a person answers (one-shot grants after an approval).
    const approvals = new ProgramApprovals()
    const rules = options.policy ?? noRules
    const view = runJsView(options.vfs, rules, approvals)
    const runner = options.runJs(view, { ask_user: programAskUser }, { askFetch: policyFetchAsk(rules, approvals) })
    tools.run_js = runJsTool(runner, {
      guarded: true,
      approvals,
      ...(options.onRunJs ? { onOutcome: options.onRunJs } : {}),
    })
  }
  if (options.bash !== undefined) {
    if (typeof options.bash !== 'function') throw new TypeError('bash must be a factory such as (view) => createBash({ vfs: view })')
    // No approvals: a command line cannot park, so an operation the policy asks about is refused.
    const view = stateReadOnly(options.vfs, policyCheck(options.policy ?? noRules, 'bash'))
    tools.bash = bashTool(options.bash(view), {
      archive: options.vfs,
      ...(options.bashDeadline ? { deadline: options.bashDeadline } : {}),
      ...(options.onBash ? { onRun: options.onBash } : {}),
    })
  }
  if (options.askUser) tools.ask_user = askUserTool(options.askUser)
  return tools
}

const noRules = (): readonly PolicyRule[] => []

export { stateReadOnly } from '../policy/run-js-view.js'

/** The tools as the model is told about them (JSON Schema inputs). */
export function toolSpecs(tools: ToolSet): FunctionToolSpec[] {
  return Object.entries(tools).map(([name, tool]) => {
    const { $schema: _schema, ...inputSchema } = z.toJSONSchema(tool.inputSchema, {
      io: 'input',
      unrepresentable: 'any',
    }) as Record<string, unknown>
    return { type: 'function', name, description: tool.description, inputSchema }
  })
}
