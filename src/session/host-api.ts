import type { HistoryRetentionOptions, HistoryRetentionReport } from './host/history-retention.js'
import type { RunVfs, VfsStore } from 'agent-vfs'
import type { ExecutionEvent, ExecutionRecord, PendingAnswer } from 'agent-vfs/agent'
import type { TailListener } from './records/log-tail.js'
import type { ObserveOptions } from './records/observe.js'
import type { LiveDelta, LiveListener, LiveSubscription } from './records/live-text.js'
import type { OwnerIndex } from './records/owner-index.js'
import type { HostBudgets, OwnerUsage, SessionUsage } from './records/usage.js'
import type { SessionSignals } from './records/signals.js'
import type { SessionChanges } from './host/changes.js'
import type { ForkPoint } from './fork/fork.js'
import type { ProposalOutcome, SessionPending } from './run/proposals.js'
import type { ForkSource } from './fork/fork-source.js'
import type { RemoteForks } from './fork/fork-remote.js'
import type { OpenedSession, SessionRef } from './session-ref.js'
import type {
  AgentProfile,
  EventLine,
  Heartbeat,
  OwnerQuota,
  Page,
  SessionEvent,
  SessionMessage,
  SentMessage,
  SessionActor,
  SessionRecord,
} from './types.js'

/** The public shape of a session host: its options and methods (see host.ts for `createSessionHost`). */

/** Options of {@link createSessionHost}. */
export interface SessionHostOptions {
  /** Any workspace store: memory, IndexedDB, Postgres/PGlite, Durable Object, D1. */
  store: VfsStore
  /** The agent profiles sessions may use, by name. */
  agents: Record<string, AgentProfile>
  /** Namespace of every scope the host writes. Default `agent-vfs-sessions`. */
  namespace?: string
  /** Names this host in leases. Default: a random id. */
  hostId?: string
  /** How long a lease lasts without renewal (renewed every third of it). Default 30 s. */
  leaseMs?: number
  /** Cross-process notifications (e.g. `postgresSignals`); the store's `watch` and polling are used besides. */
  signals?: SessionSignals
  /** How often observers look at the store without a signal. Default 1 s. */
  pollMs?: number
  /** Default heartbeat interval of `observe`. Default 15 s. */
  heartbeatMs?: number
  quota?: OwnerQuota
  /** Streams of an owner this host serves outside {@link SessionHost.openStream} (hibernated WebSockets), counted against `quota.maxStreams`. */
  streamsElsewhere?: (owner: string) => number
  /**
   * Where owners' session lists, counts and bytes live. Default: a small scope per owner in
   * `store`. The Cloudflare Worker keeps them in D1 (`agent-vfs/worker`).
   */
  ownerIndex?: OwnerIndex
  /**
   * This host is the only one that ever runs the store's sessions (a Durable Object: one live
   * instance at a time), so a lease another holder left is stale at once: a restarted instance
   * takes it over without waiting for it to expire. Default false.
   */
  exclusive?: boolean
  /**
   * Hard stops (docs/usage-budgets.md): `execution`, every execution's (a profile's
   * `ExecutionSetup.budget` can only tighten it); `owner`, all of one owner's sessions together.
   * Default: none (unlimited).
   */
  budgets?: HostBudgets
  /**
   * How this host reads the original of a fork made from another store (`remoteForks.adopt`), to
   * finish one a dead host left half-copied. The Worker's objects set it (RPC to the original's
   * object). Default: none.
   */
  forkSource?: (from: string, forkId: string) => ForkSource
}

/** One file to write into a session's workspace. */
export interface UploadFile {
  /** Absolute path under /context, /skills, /work or /outputs. */
  path: string
  data: Uint8Array | string
}

/** Options of {@link SessionHost.gc}. */
export interface GcOptions {
  /** Delete sessions closed longer ago than this (ms). */
  closedOlderThan?: number
  /** Keep at least the last N events of every session; older whole segments go. */
  keepEvents?: number
  /** Keep the newest N run_js archives (script + result) per session. */
  keepRunArchives?: number
}

/** What {@link SessionHost.gc} removed. */
export interface GcReport {
  sessionsDeleted: string[]
  segmentsDeleted: number
  archivesDeleted: number
}

/** A session host: sessions, messages, pending actions, aborts, events, recovery. See {@link createSessionHost}. */
export interface SessionHost {
  readonly hostId: string
  /** Creates a session; `id` (`s` + 32 hex digits) names it instead of a random id, for a caller that addresses storage by it. */
  create(options: { owner: string; profile: string; title?: string; id?: string }): Promise<SessionRecord>
  /** An owner's sessions, newest first. */
  list(owner: string, options?: { cursor?: string; limit?: number }): Promise<Page<SessionRecord>>
  /**
   * Opens the session for one request: with `owner`, another owner's session is not found; resumes
   * an orphaned execution it finds. The methods below take the session it gives in place of its id
   * and use what it read instead of reading it again; the first of them spends it (see
   * {@link OpenedSession}).
   */
  open(sessionId: string, owner?: string): Promise<OpenedSession>
  /** The session; with `owner`, another owner's session is not found. Resumes an orphaned execution it finds. */
  get(session: SessionRef, owner?: string): Promise<SessionRecord>
  close(session: SessionRef): Promise<SessionRecord>
  reopen(session: SessionRef): Promise<SessionRecord>
  delete(session: SessionRef): Promise<void>
  /**
   * Sends a message: starts an execution, or is queued as a follow-up, or (`steer`) goes to the
   * running execution at its next window. Once it resolves, the session's status shows the work
   * (`running` on the execution it starts), in `get` and `list` too.
   */
  send(session: SessionRef, message: { text: string; steer?: boolean }): Promise<SentMessage>
  messages(session: SessionRef): Promise<SessionMessage[]>
  /** Unanswered approvals and questions, and (with `proposal`: its diff) an ended execution's proposed changes. */
  pending(session: SessionRef): Promise<SessionPending[]>
  /**
   * Answers a pending approval or question; the execution continues. A proposal (`e0001-proposal`)
   * is approved (its branch lands as one commit) or denied (discarded): resolves to the outcome.
   */
  answer(session: SessionRef, pendingId: string, answer: PendingAnswer): Promise<ProposalOutcome | void>
  /** Records an abort of the running execution; it ends `interrupted` at its next model or tool call. */
  abort(session: SessionRef): Promise<void>
  /** Resumes an interrupted execution. */
  resume(session: SessionRef): Promise<void>
  executions(session: SessionRef): Promise<ExecutionRecord[]>
  execution(session: SessionRef, executionId: string): Promise<{ record: ExecutionRecord; events: ExecutionEvent[] }>
  /** Stored events with `seq > after`. */
  events(session: SessionRef, options?: { after?: number; limit?: number }): Promise<SessionEvent[]>
  /**
   * Stored events with `seq > after` as their stored JSON text: what a catch-up serves without
   * parsing them. Pages of up to `limit` events (default 1,000, at most 10,000), ending early
   * (with at least one event) once a page holds 4 MiB of text; ask again after the last `seq`.
   */
  eventLines(session: SessionRef, options?: { after?: number; limit?: number }): Promise<EventLine[]>
  /**
   * Events after `after`, stored then live; see {@link ObserveOptions}. With `live: true`, also the
   * assistant text and reasoning of an execution running on this host as the model streams it
   * ({@link LiveDelta}s, never stored: first the text so far, then the rest).
   */
  observe(sessionId: string, options: ObserveOptions & { live: true }): AsyncIterable<SessionEvent | Heartbeat | LiveDelta>
  observe(sessionId: string, options?: ObserveOptions & { live?: false }): AsyncIterable<SessionEvent | Heartbeat>
  observe(sessionId: string, options: ObserveOptions & { live?: boolean }): AsyncIterable<SessionEvent | Heartbeat | LiveDelta>
  /** Hears the live text of the session's execution running on this host, coalesced; for hosts that fan events out themselves. */
  liveText(sessionId: string, listener: LiveListener): LiveSubscription
  /**
   * Joins the session's shared tail (the one reader its observers share on this host): `listener`
   * hears every stored event above the returned `head`, a batch per store read; the events up to
   * `head` are the caller's to read (`eventLines`). `pollMs: Infinity` adds no poll (a host whose
   * own commits are the only writes, e.g. a Durable Object). For hosts that fan events out
   * themselves (the Worker's WebSockets); `observe` is the iterator built on it.
   */
  tail(sessionId: string, listener: TailListener, pollMs?: number): Promise<{ head: number; off: () => void }>
  /** Counts an event stream of `owner` against `quota.maxStreams`: its release (call it when the stream ends), or undefined at the limit. */
  openStream(owner: string): (() => void) | undefined
  /**
   * The session's workspace, fresh from the store. Write through {@link SessionHost.writeFiles}; a
   * host that writes through it for a client (the MCP endpoint) tags its writes with `actor`.
   */
  workspace(session: SessionRef, options?: { actor?: SessionActor }): Promise<RunVfs>
  /** Writes files into the workspace in one commit, within the owner's quota. */
  writeFiles(session: SessionRef, files: UploadFile[]): Promise<string[]>
  deleteFile(session: SessionRef, path: string): Promise<void>
  /**
   * Stores what the workspace holds now as the session's bytes in the owner's index (what the
   * owner's byte quota sums), after writes made through {@link SessionHost.workspace} by tools a
   * client drives (the MCP endpoint); uploads and executions record their own.
   */
  recordUsage(sessionId: string): Promise<void>
  /** The workspace's history: history, diffs, undoing an execution, branches (see docs/sessions-history.md). */
  readonly changes: SessionChanges
  /** A new session of the same owner whose workspace is this one's at the point (a branch) and whose log holds the events up to it. */
  fork(session: SessionRef, at: ForkPoint, options?: { title?: string }): Promise<SessionRecord>
  /** Forking across stores, one side on each host (the Worker: each session is its own Durable Object). */
  readonly remoteForks: RemoteForks
  /** What the session's executions spent (tokens, model and tool calls, run_js CPU time, bytes written), each and in total. */
  usage(session: SessionRef): Promise<SessionUsage>
  /** What the owner's sessions spent, each (live ones) and in total (deleted ones included). */
  ownerUsage(owner: string): Promise<OwnerUsage>
  /** Resumes executions whose host died (lease expired). Resolves to the sessions it took on. */
  recover(): Promise<string[]>
  gc(options: GcOptions): Promise<GcReport>
  /**
   * One bounded pass of history retention over the sessions (history-retention.ts; defaults in
   * DEFAULT_HISTORY_RETENTION): `npm run serve` runs it every lease period, the Worker in each alarm.
   */
  collectHistory(options?: HistoryRetentionOptions): Promise<HistoryRetentionReport>
  /** Resolves when this host has no work in progress on the session (tests, shutdown). */
  settled(sessionId: string): Promise<void>
  /** Stops taking work; does not wait for running executions. */
  stop(): Promise<void>
}
