import { isVfsError, type ChangeActor, type VersionedVfs, type Vfs, type VfsBranch, type VfsConflict, type VfsDiff } from 'agent-vfs'
import type { PendingSummary } from 'agent-vfs/agent'

/**
 * Propose → review → apply. An execution whose profile sets `writes: 'propose'` runs on a branch of
 * the session's workspace (`propose-<executionId>`; `/state` stays on the workspace). Its record
 * here (`/state/proposals/<executionId>.json`) is written when the branch is made, so once the
 * execution has ended the proposal is pending without another write: there is no moment after the
 * end when a crash could lose it. Answering it stores the decision first (durable intent), then
 * lands the branch as ONE group commit (or discards it) and stores the outcome; a host that finds a
 * decision without an outcome finishes it (state.ts, `proposal-answered`). The landing commit is
 * tagged with the execution (`{ kind: 'api', proposal }`), so finishing it again never lands twice.
 */
export const PROPOSALS_DIR = '/state/proposals'

/** The branch an execution's proposal lives in. */
export const proposalBranch = (executionId: string) => `propose-${executionId}`

/** The pending id of an execution's proposal (answered like any approval). */
export const proposalId = (executionId: string) => `${executionId}-proposal`

/** A proposal's pending id; group 1 is the execution. */
export const PROPOSAL_ID = /^(e\d{4,})-proposal$/

/** What became of a proposal. */
export type ProposalOutcome =
  /** Approved and landed as one commit at `version`. */
  | { status: 'landed'; version: number }
  /** Approved, but the workspace changed since the branch was made: nothing was written; the branch stays, for review. */
  | { status: 'conflicts'; conflicts: VfsConflict[] }
  /** Rejected: the branch is gone. */
  | { status: 'discarded' }
  /** The execution changed nothing: there was nothing to review. */
  | { status: 'empty' }

/** The durable record of one execution's proposal. */
export interface ProposalRecord {
  executionId: string
  branch: string
  /** The workspace version the branch was made at: what the diff compares against. */
  baseVersion: number
  createdAt: number
  /** The person's decision (stored before it is carried out). */
  answer?: 'approve' | 'deny'
  answeredAt?: number
  outcome?: ProposalOutcome
}

/** What a reviewer sees of a pending proposal: the branch and its diff against the base (text line patches). */
export interface ProposalReview {
  branch: string
  baseVersion: number
  diff: VfsDiff
}

/** A pending action of a session: an execution's approval or question, or (`proposal`) an ended execution's proposed changes. */
export type SessionPending = PendingSummary & { proposal?: ProposalReview }

/** The history tag of a proposal's landing: a person's (`api`), naming the execution. */
export const landingActor = (executionId: string): ChangeActor => ({ kind: 'api', proposal: executionId })

const recordPath = (executionId: string) => `${PROPOSALS_DIR}/${executionId}.json`

export async function readProposal(ws: Vfs, executionId: string): Promise<ProposalRecord | undefined> {
  try {
    return JSON.parse(await ws.readFile(recordPath(executionId), 'utf8')) as ProposalRecord
  } catch (error) {
    if (isVfsError(error, 'ENOENT')) return undefined
    throw error
  }
}

export async function writeProposal(ws: Vfs, record: ProposalRecord): Promise<void> {
  await ws.writeFile(recordPath(record.executionId), JSON.stringify(record))
}

async function branchOrNone(base: VersionedVfs, name: string): Promise<VfsBranch | undefined> {
  try {
    return await base.openBranch(name)
  } catch (error) {
    if (isVfsError(error, 'ENOENT')) return undefined
    throw error
  }
}

/** The execution's proposal branch: made (with its record) on the execution's first run, reopened on every later one. */
export async function openProposal(base: VersionedVfs, executionId: string): Promise<VfsBranch> {
  const name = proposalBranch(executionId)
  let branch = await branchOrNone(base, name)
  if (!branch) {
    try {
      branch = await base.branch({ name })
    } catch (error) {
      if (!isVfsError(error, 'EEXIST')) throw error
      branch = await base.openBranch(name)
    }
  }
  if (!(await readProposal(base, executionId)))
    await writeProposal(base, { executionId, branch: name, baseVersion: branch.baseVersion, createdAt: Date.now() })
  return branch
}

const reviewPath = (executionId: string) => `${PROPOSALS_DIR}/${executionId}.diff.json`

/**
 * After the execution ended: a proposal that changes nothing is settled at once (nothing to review);
 * any other gets its diff computed here, once, and stored beside its record: what `GET …/pending`
 * shows, on every read, without diffing again (a diff is bounded, but not free: issue 27).
 */
export async function settleProposal(base: VersionedVfs, executionId: string): Promise<void> {
  const record = await readProposal(base, executionId)
  if (!record || record.answer || record.outcome) return
  const branch = await branchOrNone(base, record.branch)
  const diff = branch ? await branch.diffBase({ patches: true }) : undefined
  if (diff && diff.entries.length > 0) {
    await base.writeFile(reviewPath(executionId), JSON.stringify(diff))
    return
  }
  await branch?.discard()
  await writeProposal(base, { ...record, outcome: { status: 'empty' } })
}

/** The diff stored when the proposal was settled; undefined if none was (the host died first). */
async function storedReview(base: VersionedVfs, executionId: string): Promise<VfsDiff | undefined> {
  try {
    return JSON.parse(await base.readFile(reviewPath(executionId), 'utf8')) as VfsDiff
  } catch (error) {
    if (isVfsError(error, 'ENOENT')) return undefined
    throw error
  }
}

/**
 * What the reviewer is shown: an approval whose payload is the diff of the branch against its base,
 * as stored when the execution ended (computed, bounded, only if a host died before storing it).
 */
export async function proposalPending(base: VersionedVfs, record: ProposalRecord): Promise<SessionPending | undefined> {
  const branch = await branchOrNone(base, record.branch)
  if (!branch) return undefined
  const diff = (await storedReview(base, record.executionId)) ?? (await branch.diffBase({ patches: true }))
  // Files, not the folders the diff also lists: the sentence is for a person.
  const files = diff.entries.filter(e => e.kind === 'file').length
  return {
    id: proposalId(record.executionId),
    executionId: record.executionId,
    kind: 'approval',
    createdAt: record.createdAt,
    toolCallId: '',
    toolName: 'apply_changes',
    input: { branch: record.branch, baseVersion: record.baseVersion, files },
    reason: `Execution ${record.executionId} proposes changes to ${files} file(s): approve to land them as one commit, deny to discard them`,
    proposal: { branch: record.branch, baseVersion: record.baseVersion, diff },
  }
}

/** The version the proposal landed at, if a landing of it is in the history. */
async function landedAt(base: VersionedVfs, record: ProposalRecord): Promise<number | undefined> {
  const own = (a: ChangeActor | undefined) =>
    typeof a === 'object' && a !== null && a.kind === 'api' && (a as { proposal?: unknown }).proposal === record.executionId
  return (await base.history({ after: record.baseVersion, actor: own, limit: 1 }))[0]?.version
}

/**
 * Carries out a stored decision, once: lands the branch (one group commit, checked; conflicts:
 * nothing written) or discards it, then stores the outcome. Safe to call again after a crash
 * anywhere in it, and by two hosts at once: a landing already in the history is never repeated.
 */
export async function applyProposal(base: VersionedVfs, executionId: string): Promise<ProposalOutcome> {
  const record = await readProposal(base, executionId)
  if (!record?.answer) throw new Error(`the proposal of ${executionId} has no decision to carry out`)
  if (record.outcome) return record.outcome
  const branch = await branchOrNone(base, record.branch)
  let outcome: ProposalOutcome
  const landed = record.answer === 'approve' ? await landedAt(base, record) : undefined
  if (record.answer === 'deny' || !branch || landed !== undefined) {
    await branch?.discard()
    outcome = landed !== undefined ? { status: 'landed', version: landed } : { status: 'discarded' }
  } else {
    const result = await branch.commit({ actor: landingActor(executionId) })
    if (result.ok) outcome = { status: 'landed', version: result.version }
    else {
      // A concurrent finisher may have landed it a moment ago: its own landing is not a conflict.
      const again = await landedAt(base, record)
      outcome = again !== undefined ? { status: 'landed', version: again } : { status: 'conflicts', conflicts: result.conflicts }
    }
  }
  const now = await readProposal(base, executionId)
  if (now?.outcome) return now.outcome
  await writeProposal(base, { ...record, outcome })
  return outcome
}
