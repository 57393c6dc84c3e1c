/**
 * agent-vfs/agent: the agent runtime: workspace tools, plans and checkpoints, result contracts,
 * policy, the task loop (`runTask`, `resumeTask`). Isomorphic (zod and the core `agent-vfs`,
 * imported by name), so it runs in browsers, workerd and Node. What is exported here is the curated
 * public API; the rules and helpers behind it (plan rules, policy evaluation, result spilling …) are
 * internal.
 *
 * ```ts
 * const run = scopeRun(vfs, { runId: 'season-1' })
 * const r = await runTask({
 *   vfs: run, model, instructions: 'Write /outputs/appendix.md …',
 *   contract: { schema, checks: [async (result, { vfs }) => problems] },
 *   policy: [{ decision: 'ask', access: 'write', exceptPaths: ['/work/**'] }],
 *   runJs: (view) => createRunJs({ vfs: view }),
 *   onEvent: (e) => console.log(e.type),
 * })
 * if (r.status === 'suspended') await resumeTask({ vfs: run, model, contract, answer: { decision: 'approve' } })
 * ```
 * A crashed or aborted run continues with `resumeTask({ vfs, model, contract })` from its last
 * checkpoint; everything is recorded under `/state` (plan.json, executions/<id>/, pending/, policy.json).
 */
export { runTask, resumeTask, TaskError, type RunTaskOptions, type ResumeTaskOptions, type TaskRunOptions } from './execution/run-task.js'
export type { TaskResult } from './execution/task-result.js'
export { defaultTaskLimits, type TaskLimits } from './execution/limits.js'
export type {
  ExecutionEvent,
  ExecutionEventBody,
  ExecutionEventType,
  ExecutionEventListener,
  ExecutionStatus,
  TaskErrorCode,
} from './state/events.js'

export {
  scriptedModel,
  type ScriptedModel,
  type ScriptedModelOptions,
  type ScriptedTurn,
  type ScriptedCall,
  type ScriptedView,
  type ToolResultView,
} from './model/scripted-model.js'
export { openAiCompatibleModel, type OpenAiCompatibleOptions } from './model/openai-compatible.js'
export type {
  LanguageModel,
  ModelCallOptions,
  GenerateResult,
  GeneratedContent,
  PromptMessage,
  ToolResultPart,
  ToolResultOutput,
  ToolCallPart,
  FunctionToolSpec,
  ModelUsage,
  FinishReason,
  ReportedUsage,
  ReportedFinishReason,
  SpecificationVersion,
  JsonValue,
} from './model/model.js'
export type { TextDelta } from './model/model-call.js'
export type { ExecutionDelta } from './execution/execution-context.js'

export {
  defineTool,
  ToolError,
  isToolError,
  type AgentTool,
  type ToolSet,
  type ToolAccess,
  type ToolCallOptions,
  type ToolErrorCode,
  type FetchApproval,
} from './tools/tool.js'
export { defaultToolLimits, ReadLedger, type ToolLimits } from './tools/tool-context.js'
export { createWorkspaceTools, toolSpecs, type WorkspaceToolsOptions, type RunJsSlot, type RunJsSlotPolicy } from './tools/toolset.js'
export { createChangeTools, type ChangeSource, type ChangeToolsOptions } from './tools/change-tools.js'
export { createBranchTools, type BranchSource, type BranchToolsOptions } from './tools/branch-tools.js'
export { runJsTool, RUN_JS_DESCRIPTION, type RunJsRunner, type RunJsOutcome, type RunJsToolOptions } from './tools/run-js-tool.js'
export { askUserTool, type AskUser } from './tools/ask-tool.js'
export {
  bashTool,
  BASH_DESCRIPTION,
  BASH_ARCHIVE_DIR,
  type BashSlot,
  type BashRunner,
  type BashRunResult,
  type BashToolOutput,
  type BashToolOptions,
} from './tools/bash-tool.js'
export type { LsEntry } from './tools/read-tools.js'

export type { Plan, PlanStep, StepStatus, PlanUpdate } from './state/plan.js'
export type { ResultContract, ResultCheck, ContractVerdict } from './tools/contract.js'
export type { PolicyRule, PolicyDecision, PolicyVerdict } from './policy/policy.js'
export { evaluatePolicy } from './policy/policy.js'
export { evaluateFetch, FETCH_POLICY_TOOL } from './policy/fetch-policy.js'
export { proposalView, type WritesMode } from './policy/proposal.js'
export { listPending, answerPending, readPending, type PendingAction, type PendingAnswer, type PendingSummary } from './state/pending.js'
export {
  listExecutionIds,
  readExecution,
  readEvents,
  type ExecutionRecord,
  type CheckpointRecord,
  type ModelUsageTotals,
} from './state/execution-records.js'
export type { WindowState, WindowReason, EarlierExecution } from './model/prompt.js'
// Where the runtime keeps its records under /state (moved here from the core's run layout).
export { PLAN_PATH, POLICY_PATH, PENDING_DIR, EXECUTIONS_DIR } from './state/paths.js'

export {
  addBudgetUsage,
  budgetMessage,
  checkBudget,
  noUsage,
  reachedBudget,
  type Budget,
  type BudgetName,
  type BudgetUsage,
  type BudgetExceeded,
} from './budget/budget.js'
export { recordUsage, type SharedBudget } from './budget/gate.js'
export { TRACER_NAME } from './telemetry/spans.js'
