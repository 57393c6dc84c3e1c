/**
 * The session state machine: what a session does next and what its status is, decided from what
 * is stored and nothing else. Pure: no store, no clock, no host. Hosts read the facts
 * ({@link SessionFacts}), ask {@link decide} for the next step and carry it out, and ask
 * {@link admit} whether a request may be acknowledged. Because only stored facts decide, a host
 * that takes a session over after a crash continues exactly where the last one stopped, and a
 * request acknowledged before the crash (a queued message, an answer, an abort, a resume) is acted
 * on by whichever host decides next.
 */
import type { ExecutionStatus } from 'agent-vfs/agent'
import type { SessionMessage, SessionStatus } from './types.js'

/** What the store says about a session, as far as the next step depends on it. */
export interface SessionFacts {
  /** The session record's status (`closed` stops everything). */
  status: SessionStatus
  /** A delete has started. */
  deleting: boolean
  /** The newest execution, if any. */
  last?: { id: string; status: ExecutionStatus }
  /** The pending action the newest execution is suspended on (when it is). */
  pending?: { kind: 'question' | 'approval'; answered: boolean }
  /**
   * The newest execution's proposal (its writes in a branch, `writes: 'propose'`), when it has one
   * not settled yet: `answered` once a person's decision is stored.
   */
  proposal?: { answered: boolean }
  /** Every message, oldest first. */
  messages: SessionMessage[]
  /** Stored requests: an abort of, or a resume of, an execution. */
  abort?: { executionId: string }
  resume?: { executionId: string }
}

/** What a host does next for a session. */
export type NextStep =
  | { kind: 'none' }
  /** Start execution `executionId` with `message` as its task (delivering it first, once). */
  | { kind: 'start'; message: SessionMessage; executionId: string }
  /**
   * Run execution `executionId` on. `aborted`: an abort was acknowledged for it, so it ends
   * interrupted at once (never completed). `spend`: the stored abort and resume requests are used
   * up by this step (a resume of an interrupted execution). `deliver`: queued messages go to it.
   */
  | { kind: 'resume'; executionId: string; deliver: boolean; aborted: boolean; spend: boolean }
  /** Carry out the stored decision on ended execution `executionId`'s proposal (land or discard its branch). */
  | { kind: 'apply'; executionId: string }

/** The decision: the row of {@link TRANSITIONS} that matched, the step, and the status it implies. */
export interface Decision {
  row: TransitionName
  step: NextStep
  status: SessionStatus
}

/** One row of the table: when it applies (rows are tried in order) and what follows. */
interface Transition {
  when: (f: SessionFacts) => boolean
  then: (f: SessionFacts) => { step: NextStep; status: SessionStatus }
}

const none: NextStep = { kind: 'none' }
const executionIdOf = (n: number) => `e${String(n).padStart(4, '0')}`
/** The id the next execution gets: one more than the newest. */
export const nextExecutionId = (last?: { id: string }) => executionIdOf(last ? Number(last.id.slice(1)) + 1 : 1)
const queued = (f: SessionFacts) => f.messages.filter(m => m.state === 'queued')
/** A task or follow-up (not a steer) delivered as the task of an execution that was never created (a crash in between). */
const orphan = (f: SessionFacts) =>
  f.messages.find(m => m.state === 'delivered' && m.executionId === nextExecutionId(f.last) && m.mode !== 'steer')
const ended = (f: SessionFacts) => !f.last || f.last.status === 'completed' || f.last.status === 'failed'
const resumeOf = (f: SessionFacts, o: { deliver?: boolean; aborted?: boolean; spend?: boolean } = {}): NextStep => ({
  kind: 'resume',
  executionId: f.last!.id,
  deliver: o.deliver ?? false,
  aborted: o.aborted ?? false,
  spend: o.spend ?? false,
})
const waiting = (f: SessionFacts): SessionStatus => (f.pending?.kind === 'question' ? 'waiting_input' : 'waiting_approval')

/**
 * The allowed transitions, in the order they are tried. Every step a host takes comes from one of
 * these rows; anything else (a suspended execution with no answer, an interrupted one nobody asked
 * to resume, a closed session) waits.
 */
export const TRANSITIONS = {
  /** Deleted, or being deleted: nothing runs. */
  gone: { when: f => f.deleting, then: () => ({ step: none, status: 'closed' }) },
  /** Closed: nothing runs until it is reopened. */
  closed: { when: f => f.status === 'closed', then: () => ({ step: none, status: 'closed' }) },
  /** A run stopped (crash, eviction, lost lease) after an abort was acknowledged: it ends interrupted. */
  'running-aborted': {
    when: f => f.last?.status === 'running' && f.abort?.executionId === f.last.id,
    then: f => ({ step: resumeOf(f, { aborted: true }), status: 'running' }),
  },
  /** A run stopped (crash, eviction, lost lease): it continues from its last checkpoint. */
  'running-orphaned': { when: f => f.last?.status === 'running', then: f => ({ step: resumeOf(f), status: 'running' }) },
  /** Suspended and answered: it continues with the answer. */
  'suspended-answered': {
    when: f => f.last?.status === 'suspended' && f.pending?.answered === true,
    then: f => ({ step: resumeOf(f), status: 'running' }),
  },
  /** Suspended on a person: waits. (A suspension whose pending action is gone also waits, as idle.) */
  'suspended-waiting': {
    when: f => f.last?.status === 'suspended',
    then: f => ({ step: none, status: f.pending ? waiting(f) : 'idle' }),
  },
  /** Interrupted, and a message came: it continues with the message (as a steer). */
  'interrupted-message': {
    when: f => f.last?.status === 'interrupted' && queued(f).length > 0,
    then: f => ({ step: resumeOf(f, { deliver: true, spend: true }), status: 'running' }),
  },
  /** Interrupted, and a resume was acknowledged for it: it continues. */
  'interrupted-resumed': {
    when: f => f.last?.status === 'interrupted' && f.resume?.executionId === f.last.id,
    then: f => ({ step: resumeOf(f, { spend: true }), status: 'running' }),
  },
  /** Interrupted: waits for a resume or a message. */
  'interrupted-idle': { when: f => f.last?.status === 'interrupted', then: () => ({ step: none, status: 'idle' }) },
  /** An ended execution's proposal was answered but not carried out (a crash in between): it is, before anything else starts. */
  'proposal-answered': {
    when: f => ended(f) && f.last !== undefined && f.proposal?.answered === true,
    then: f => ({ step: { kind: 'apply', executionId: f.last!.id }, status: 'waiting_approval' }),
  },
  /** An ended execution's proposal waits for review: queued messages wait with it (the next execution starts from what lands). */
  'proposal-waiting': {
    when: f => ended(f) && f.proposal !== undefined,
    then: () => ({ step: none, status: 'waiting_approval' }),
  },
  /** The task of the next execution was delivered, but the execution never created: it starts. */
  'start-orphan': {
    when: f => ended(f) && orphan(f) !== undefined,
    then: f => ({ step: { kind: 'start', message: orphan(f)!, executionId: nextExecutionId(f.last) }, status: 'running' }),
  },
  /** Nothing runs and a message is queued: the oldest starts the next execution. */
  'start-queued': {
    when: f => ended(f) && queued(f).length > 0,
    then: f => ({ step: { kind: 'start', message: queued(f)[0], executionId: nextExecutionId(f.last) }, status: 'running' }),
  },
  /** Nothing to do. */
  idle: { when: () => true, then: () => ({ step: none, status: 'idle' }) },
} satisfies Record<string, Transition>

export type TransitionName = keyof typeof TRANSITIONS

/** The next step and the status, from the stored facts. */
export function decide(facts: SessionFacts): Decision {
  for (const [row, t] of Object.entries(TRANSITIONS) as Array<[TransitionName, Transition]>) {
    if (t.when(facts)) return { row, ...t.then(facts) }
  }
  /* c8 ignore next */
  throw new Error('unreachable: the last row always applies')
}

/**
 * What the session record shows for the stored facts: the status {@link decide} gives them, and the
 * execution the session is on: the one a start begins (so from the moment a message that starts an
 * execution is acknowledged, the session is `running` on it), else the newest.
 */
export function shownStatus(facts: SessionFacts): { status: SessionStatus; executionId?: string } {
  const { step, status } = decide(facts)
  const executionId = step.kind === 'start' ? step.executionId : facts.last?.id
  return { status, ...(executionId !== undefined ? { executionId } : {}) }
}

/** Requests a person makes of a session. */
export type SessionRequest = 'send' | 'answer' | 'abort' | 'resume' | 'close' | 'reopen'

/** Why a request is refused: the API's error codes. */
export type Refusal = { code: 'closed' | 'not-running' | 'not-interrupted' | 'not-waiting'; message: string }

/**
 * Whether a request may be acknowledged now. `status` is the record's (what the person sees);
 * an answer needs the pending action (`pending`) open, a resume an interrupted execution. Refused requests
 * store nothing; an admitted one is stored before it is acknowledged and then finished by
 * {@link decide} on whichever host runs the session next.
 */
export function admit(
  request: SessionRequest,
  facts: Pick<SessionFacts, 'status' | 'last' | 'pending'> & { executionId?: string },
): Refusal | undefined {
  const closed = facts.status === 'closed'
  switch (request) {
    case 'send':
      return closed ? { code: 'closed', message: 'the session is closed' } : undefined
    case 'answer':
      // (A proposal's answer passes its own facts as `pending`: an approval, answered or not.)
      if (closed) return { code: 'closed', message: 'the session is closed' }
      return facts.pending && !facts.pending.answered ? undefined : { code: 'not-waiting', message: 'nothing is pending with that id' }
    case 'abort':
      return facts.status === 'running' && facts.executionId
        ? undefined
        : { code: 'not-running', message: 'the session has no running execution' }
    case 'resume':
      if (closed) return { code: 'closed', message: 'the session is closed' }
      return facts.last?.status === 'interrupted'
        ? undefined
        : { code: 'not-interrupted', message: 'the session has no interrupted execution to resume' }
    case 'close':
    case 'reopen':
      return undefined
  }
}

/**
 * The status moves a host may store when it settles a session on what {@link decide} says. `closed`
 * is left only by the reopen request ({@link REQUEST_MOVES}), never by a settle; everything else
 * follows the executions. A move not in the table is refused (the record keeps its status).
 */
export const STATUS_MOVES: Record<SessionStatus, readonly SessionStatus[]> = {
  idle: ['running', 'waiting_input', 'waiting_approval', 'closed'],
  running: ['idle', 'waiting_input', 'waiting_approval', 'closed'],
  waiting_input: ['running', 'idle', 'waiting_approval', 'closed'],
  waiting_approval: ['running', 'idle', 'waiting_input', 'closed'],
  closed: [],
}

/** Whether the record may go from `from` to `to` (staying put is always allowed). */
export const canMove = (from: SessionStatus, to: SessionStatus) => from === to || STATUS_MOVES[from].includes(to)

/** The requests that move the record's status themselves, not through the executions. */
export type StatusRequest = Extract<SessionRequest, 'close' | 'reopen'>

/**
 * The status moves of a person's requests: close (any open status to `closed`) and reopen
 * (`closed` to `idle`, after which the session settles on what {@link decide} says). The only way
 * out of `closed`. A request from a status not in its row changes nothing (closing a closed
 * session, reopening an open one).
 */
export const REQUEST_MOVES: Record<StatusRequest, { from: readonly SessionStatus[]; to: SessionStatus }> = {
  close: { from: ['idle', 'running', 'waiting_input', 'waiting_approval'], to: 'closed' },
  reopen: { from: ['closed'], to: 'idle' },
}

/** The status `request` moves the record to from `from`, or undefined when it changes nothing. */
export function requestMove(request: StatusRequest, from: SessionStatus): SessionStatus | undefined {
  const move = REQUEST_MOVES[request]
  return move.from.includes(from) ? move.to : undefined
}
