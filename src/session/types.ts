import type { ResultContract } from 'agent-vfs/agent'
import type { ExecutionEventBody } from 'agent-vfs/agent'
import type { TaskLimits } from 'agent-vfs/agent'
import type { LanguageModel } from 'agent-vfs/agent'
import type { PolicyRule } from 'agent-vfs/agent'
import type { ToolSet } from 'agent-vfs/agent'
import type { BashSlot, RunJsSlot } from 'agent-vfs/agent'
import type { RunVfs } from 'agent-vfs'
import type { Budget } from 'agent-vfs/agent'
import type { WritesMode } from 'agent-vfs/agent'

/** Where a session stands. `waiting_*` means an execution is suspended on a pending action. */
export type SessionStatus = 'idle' | 'running' | 'waiting_input' | 'waiting_approval' | 'closed'

/** The durable record of a session (`/session.json` in its meta scope). */
export interface SessionRecord {
  id: string
  owner: string
  profile: string
  title: string
  status: SessionStatus
  createdAt: number
  updatedAt: number
  closedAt?: number
  /** The execution the session is on (the latest one), if any. */
  executionId?: string
  /** Executions started in this session. */
  executions: number
}

/**
 * What a message is: `task`, the session's first message (it starts the first execution); `follow-up`,
 * the task of a later execution (queued while one runs); `steer`, handed to the running execution.
 */
export type MessageMode = 'task' | 'follow-up' | 'steer'

/** A message a person sent to a session, with what became of it. */
export interface SessionMessage {
  /** 1, 2, … per session. */
  n: number
  text: string
  mode: MessageMode
  at: number
  /**
   * queued: stored, not handed to an execution yet (a task or follow-up is handed over when its
   * execution starts, at once when nothing runs; a steer at the running execution's next window);
   * delivered: handed to the execution `executionId` (as its task or as a steer).
   */
  state: 'queued' | 'delivered'
  /** The execution the message started or steered (once delivered). */
  executionId?: string
}

/**
 * What sending a message answers (HTTP: the 202's body): the message as stored (`state: 'queued'`)
 * and the session as the acknowledgement left it: `running` on the execution the message starts
 * (its record appears when the execution starts) or resumes, or the status it waits in.
 */
export interface SentMessage extends SessionMessage {
  session: { status: SessionStatus; executionId?: string }
}

/**
 * Who made a workspace change: an execution of the session (the agent's file tools and run_js), a
 * person through the API (`PUT …/file`, uploads, deletes, a revert), the host itself (seeding), or an MCP
 * client through the session's MCP server (`tool`: which tool, e.g. `bash`).
 */
export type SessionActor = { kind: 'execution'; executionId: string } | { kind: 'api' } | { kind: 'host' } | { kind: 'mcp'; tool?: string }

/** One file a commit added, changed or deleted (directories are implied by their files). */
export interface ChangedFile {
  path: string
  op: 'added' | 'changed' | 'deleted'
  /** The scope version of the commit (what `stat().version` reports after it); for a delete, the commit's version too. */
  version: number
  /** Bytes after the change (0 for a delete). */
  size: number
  /** Guessed from the name, as `stat().mimeType`. */
  mimeType: string
}

/** What the session host adds to an execution's own events. */
export type SessionEventBody =
  | { type: 'session-created'; owner: string; profile: string; title: string; /** The workspace's version once seeded. */ version?: number }
  | { type: 'message'; n: number; text: string; mode: MessageMode }
  | { type: 'steer-delivered'; n: number; executionId: string }
  | { type: 'abort-requested'; executionId: string }
  | { type: 'pending-answered'; pendingId: string; answer: unknown }
  | { type: 'status'; status: SessionStatus }
  | { type: 'session-closed' }
  | { type: 'session-reopened' }
  /** The first event of a fork after the original's events up to `fromSeq`: its workspace is the original's at `version`. */
  | {
      type: 'session-forked'
      from: string
      fromSeq: number
      /** The original's workspace version at `fromSeq`: what the fork started from. */
      version: number
      /** The fork's workspace version once made (its unfinished executions marked interrupted). */
      head?: number
    }
  /** One commit of the session's workspace (one event per commit and actor), so clients' file trees stay live. */
  | { type: 'files-changed'; version: number; by: SessionActor; changes: ChangedFile[] }
  | (ExecutionEventBody & { executionId: string; executionSeq: number })

/** One event of a session's log: `seq` counts 1, 2, … across all the session's executions. */
export type SessionEvent = SessionEventBody & { seq: number; at: number }

/**
 * A stored event as its JSON text, unparsed: what a catch-up serves (an HTTP page, an SSE
 * stream) without parsing and serialising every event again. `json` parses to the event.
 */
export interface EventLine {
  seq: number
  type: SessionEvent['type']
  json: string
}

/** What `observe` yields between events when nothing happens, so HTTP connections stay open. */
export interface Heartbeat {
  type: 'heartbeat'
  at: number
  /** The last sequence delivered so far. */
  after: number
}

/** What an agent profile gives one execution. */
export interface ExecutionSetup {
  /** A fresh model for this execution (scripted models keep per-execution state). */
  model: LanguageModel
  /** Must be the same for every run of one execution (the runner refuses a resume without it). */
  contract?: ResultContract
  policy?: PolicyRule[]
  runJs?: RunJsSlot
  /** Adds `bash` (`(view) => createBash({ vfs: view })` of `agent-vfs/bash`). */
  bash?: BashSlot
  tools?: ToolSet
  limits?: Partial<TaskLimits>
  /** Adds `changes_since` and `diff_files` (what changed in the workspace since this execution started, line diffs). */
  changeTools?: boolean
  /**
   * Adds the attempt tools (`attempt_start`, `attempt_write`, `attempt_read`, `attempt_diff`,
   * `attempt_commit`, `attempt_discard`): named copy-on-write branches of the workspace the agent
   * writes into side by side and lands one of as one commit (or gets the conflicts).
   */
  branchTools?: boolean
  /**
   * `propose`: the execution writes into a branch of the workspace (it reads its own writes); when it
   * ends, the session waits on an approval whose payload is the branch's diff; approving lands it as
   * one group commit (or shows the conflicts), denying discards it (docs/sessions-history.md).
   * Default `direct`. Give every run of one execution the same mode.
   */
  writes?: WritesMode
  /** This execution's budget; the host's `budgets.execution` still applies (the tighter figure wins). */
  budget?: Budget
}

/**
 * An agent a session may use: instructions come from messages; the profile gives everything else,
 * per execution (the first execution of a session is `index` 1).
 */
export interface AgentProfile {
  description?: string
  /** Called for each run of an execution (start and every resume), with the same `index` for one execution. */
  setup(execution: { index: number; instructions: string; sessionId: string; owner?: string }): ExecutionSetup | Promise<ExecutionSetup>
  /** Files written into a new session's workspace (e.g. `/skills`). */
  seed?(workspace: RunVfs): Promise<void>
}

/** Limits per owner. */
export interface OwnerQuota {
  /** Open and closed sessions an owner may hold. */
  maxSessions?: number
  /** Bytes of workspace files over all of an owner's sessions. */
  maxBytes?: number
  /**
   * Sessions of one owner running an execution at once. A message that would start an execution in
   * an idle session while the owner has this many running is refused (`too-many-running`, HTTP 429)
   * and not stored; messages to a session that is already running or waiting queue as usual, and an
   * answer or a resume is never refused.
   */
  maxRunningExecutions?: number
  /**
   * Event streams (SSE and WebSocket together) an owner may have open on one host at once; one
   * more is refused with 429 `too-many-streams` until one ends. On the Worker, per session object.
   */
  maxStreams?: number
}

/** A page of results; pass `next` as `cursor` to get the following page. */
export interface Page<T> {
  items: T[]
  next?: string
}
