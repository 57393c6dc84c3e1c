/**
 * The agent runtime: workspace tools, plans and checkpoints, result contracts, policy, the runner.
 * Isomorphic (zod and the workspace only), so it runs in browsers, workerd and Node.
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
export { defineTool, ToolError, toToolError, isToolError, type AgentTool, type ToolSet, type ToolAccess, type ToolCallOptions, type ToolErrorCode } from './tool.js'
export { ReadLedger, defaultToolLimits, type ToolLimits } from './tool-context.js'
export { vfsErrorCode } from './vfs-code.js'
export { createWorkspaceTools, toolSpecs, stateReadOnly, type WorkspaceToolsOptions, type RunJsSlot } from './toolset.js'
export { runJsTool, type RunJsRunner, type RunJsOutcome } from './run-js-tool.js'
export { askUserTool, type AskUser } from './ask-tool.js'
export { spillLargeResult, type SpilledResult } from './spill.js'
export type { LsEntry } from './read-tools.js'
export { PlanController, PLAN_PATH, PLAN_RULES, type Plan, type PlanStep, type StepStatus, type PlanRule, type PlanUpdate } from './plan.js'
export { updatePlanTool } from './plan-tool.js'
export { checkResult, type ResultContract, type ResultCheck, type ContractVerdict } from './contract.js'
export { submitResultTool, type SubmissionState, type AcceptedResult, type SubmitToolOptions } from './submit-tool.js'
export { evaluatePolicy, evaluateOperation, ruleApplies, loadSavedRules, saveRule, allowRuleFor, POLICY_PATH, type PolicyRule, type PolicyDecision, type PolicyVerdict } from './policy.js'
export { listPending, answerPending, readPending, PENDING_DIR, type PendingAction, type PendingAnswer, type PendingSummary } from './pending.js'
export { EXECUTIONS_DIR, listExecutionIds, readExecution, readEvents, type ExecutionRecord, type CheckpointRecord, type ModelUsageTotals } from './journal.js'
export type { ExecutionEvent, ExecutionEventBody, ExecutionEventType, ExecutionEventListener, ExecutionStatus, TaskErrorCode } from './events.js'
export { defaultTaskLimits, type TaskLimits } from './limits.js'
export { readWindowState, type WindowState, type WindowReason, type EarlierExecution } from './prompt.js'
export type { TaskResult } from './task-result.js'
export { runTask, resumeTask, TaskError, type RunTaskOptions, type ResumeTaskOptions, type TaskRunOptions } from './runner.js'
export { scriptedModel, type ScriptedModel, type ScriptedTurn, type ScriptedCall, type ScriptedView, type ToolResultView } from './scripted-model.js'
export { openAiCompatibleModel, toChatMessages, type OpenAiCompatibleOptions } from './openai-compatible.js'
export type { LanguageModel, ModelCallOptions, GenerateResult, GeneratedContent, PromptMessage, ToolResultPart, ToolResultOutput, ToolCallPart, FunctionToolSpec, ModelUsage, JsonValue } from './model.js'
