import { isVfsError, type Vfs } from 'agent-vfs'
import { PENDING_DIR } from './paths.js'
import type { ModelUsageTotals } from './execution-records.js'
import type { PromptMessage, ToolResultPart } from '../model/model.js'
import type { FetchApproval, ProgramSuspension, ToolAccess } from '../tools/tool.js'

/** How a person answers a pending approval (`always` also saves an allow rule) or question. */
export type PendingAnswer = { decision: 'approve' | 'deny' | 'always'; message?: string } | { answer: string }

/** A tool call waiting for approval, or a question waiting for an answer; durable in `/state/pending`. */
export interface PendingAction {
  id: string
  executionId: string
  kind: 'approval' | 'question'
  createdAt: number
  toolCallId: string
  toolName: string
  input: unknown
  /** approval: why the policy asks. */
  reason?: string
  access?: ToolAccess
  /** approval: the request of a program's `external_fetch` to an origin the policy asks about. */
  fetch?: FetchApproval
  /** question: the text and suggested answers. */
  question?: string
  options?: string[]
  answer?: PendingAnswer
  answeredAt?: number
  /** The call is a run_js program parked on this question or approval: its journal, to resume it (not in summaries). */
  program?: ProgramSuspension
  /** The window to continue: its messages, the results before this call and the results after it. */
  window: {
    number: number
    messages: PromptMessage[]
    before: ToolResultPart[]
    after: ToolResultPart[]
    usage?: ModelUsageTotals
    /** Successful non-plan tool calls since the last plan update when the window suspended (restored on resume). */
    workSinceUpdate?: number
  }
}

/** A pending action without its window transcript and a program's journal, as returned to callers. */
export type PendingSummary = Omit<PendingAction, 'window' | 'program'> & { program?: { call: string } }

/** Strips the transcript (and a parked program's journal) from a pending action. */
export function summarizePending(p: PendingAction): PendingSummary {
  const { window: _window, program, ...rest } = p
  return program ? { ...rest, program: { call: program.call } } : rest
}

/** Reads one pending action. */
export async function readPending(vfs: Vfs, id: string): Promise<PendingAction | undefined> {
  try {
    return JSON.parse(await vfs.readFile(`${PENDING_DIR}/${id}.json`, 'utf8')) as PendingAction
  } catch (error) {
    if (isVfsError(error, 'ENOENT')) return undefined
    throw error
  }
}

/** Stores a pending action. */
export async function writePending(vfs: Vfs, pending: PendingAction): Promise<void> {
  await vfs.writeFile(`${PENDING_DIR}/${pending.id}.json`, JSON.stringify(pending))
}

/** Pending actions not answered yet, oldest first. */
export async function listPending(vfs: Vfs): Promise<PendingSummary[]> {
  if (!(await vfs.exists(PENDING_DIR))) return []
  const out: PendingSummary[] = []
  for (const name of await vfs.readdir(PENDING_DIR)) {
    const p = await readPending(vfs, name.replace(/\.json$/, ''))
    if (p && !p.answer) out.push(summarizePending(p))
  }
  return out.sort((a, b) => a.createdAt - b.createdAt)
}

/**
 * Records the answer to a pending action, durably. The execution continues when `resumeTask` is
 * called (it can also take the answer itself). Throws if the id is unknown or the answer does not
 * fit the kind of action.
 */
export async function answerPending(vfs: Vfs, id: string, answer: PendingAnswer): Promise<PendingAction> {
  const pending = await readPending(vfs, id)
  if (!pending) throw new Error(`No pending action "${id}": list them with listPending(vfs).`)
  const ok =
    pending.kind === 'approval'
      ? 'decision' in answer && ['approve', 'deny', 'always'].includes(answer.decision)
      : 'answer' in answer && typeof answer.answer === 'string'
  if (!ok)
    throw new Error(
      pending.kind === 'approval'
        ? 'An approval needs { decision: "approve" | "deny" | "always" }.'
        : 'A question needs { answer: "<text>" }.',
    )
  if (pending.answer) return pending
  pending.answer = answer
  pending.answeredAt = Date.now()
  await writePending(vfs, pending)
  return pending
}
