import { RUN_ROOTS, STATE_ROOT, scopeRun, type RunVfs, type Vfs } from 'agent-vfs'
import { z } from 'zod'
import { askUserTool, type AskUser } from './ask-tool.js'
import type { FunctionToolSpec } from './model.js'
import { lsTool, readFileTool } from './read-tools.js'
import { runJsTool, type RunJsRunner } from './run-js-tool.js'
import { globTool, grepTool } from './search-tools.js'
import type { ToolSet } from './tool.js'
import { fileToolContext, type ReadLedger, type ToolLimits } from './tool-context.js'
import { deleteTool, editFileTool, mkdirTool, moveTool, writeFileTool } from './write-tools.js'

/** A run_js runner, or a factory that gets the workspace view the runner should use. */
export type RunJsSlot = RunJsRunner | ((vfs: RunVfs) => RunJsRunner)

/** Options of {@link createWorkspaceTools}. */
export interface WorkspaceToolsOptions {
  vfs: Vfs
  limits?: Partial<ToolLimits>
  /** Share one ledger between tool sets of the same execution. */
  reads?: ReadLedger
  /** Adds `run_js`. A factory receives a view of the workspace in which /state is read-only. */
  runJs?: RunJsSlot
  /** Adds `ask_user`, answered by this function. */
  askUser?: AskUser
}

/**
 * The workspace tools (`ls`, `read_file`, `write_file`, `edit_file`, `move`, `delete`, `mkdir`,
 * `glob`, `grep`, and `run_js` / `ask_user` when configured), ready to hand to the AI SDK's
 * `generateText({ tools })` or to {@link runTask}.
 */
export function createWorkspaceTools(options: WorkspaceToolsOptions): ToolSet {
  const ctx = fileToolContext(options.vfs, options.limits, options.reads)
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
  if (options.runJs) tools.run_js = runJsTool(typeof options.runJs === 'function' ? options.runJs(stateReadOnly(options.vfs)) : options.runJs)
  if (options.askUser) tools.ask_user = askUserTool(options.askUser)
  return tools
}

/** A view of the workspace's roots in which `/state` (and every root already read-only) cannot change. */
export function stateReadOnly(vfs: Vfs): RunVfs {
  const runRoots = (vfs as Partial<RunVfs>).roots
  const names = runRoots ? Object.keys(runRoots) : RUN_ROOTS
  const roots = Object.fromEntries(names.map((n) => [n, { writable: n !== STATE_ROOT.slice(1) && (runRoots?.[n]?.writable ?? true), target: '/' + n }]))
  return scopeRun(vfs, { runId: 'agent', roots })
}

/** The tools as the model is told about them (JSON Schema inputs). */
export function toolSpecs(tools: ToolSet): FunctionToolSpec[] {
  return Object.entries(tools).map(([name, tool]) => {
    const { $schema: _schema, ...inputSchema } = z.toJSONSchema(tool.inputSchema, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>
    return { type: 'function', name, description: tool.description, inputSchema }
  })
}
