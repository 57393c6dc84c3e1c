import type { HostBudgets } from './records/usage.js'
import type { VersionedVfs, VfsStore } from 'agent-vfs'
import { isVfsError } from 'agent-vfs'
import { sessionNotFound } from './errors.js'
import { EventLog, LOG_PATH, type LogHint } from './records/event-log.js'
import type { Lease } from './records/leases.js'
import { MessageBox } from './records/messages.js'
import { loadRecords, putJson, versionOf, type RecordMap } from './records/records.js'
import { canMove, requestMove, type StatusRequest } from './state.js'
import {
  ABORT_PATH,
  DELETING_PATH,
  LEASE_PATH,
  RESUME_PATH,
  SESSION_ID,
  SESSION_PATH,
  SessionStorage,
  scopeNames,
  FORK_PATH,
  type ForkRecord,
} from './storage.js'
import type { OwnerIndex } from './records/owner-index.js'
import type { SessionSignals } from './records/signals.js'
import type { AgentProfile, EventLine, OwnerQuota, SessionEvent, SessionEventBody, SessionRecord, SessionStatus } from './types.js'
import { Workspaces } from './records/workspace.js'
import { FileEvents } from './records/file-events.js'
import type { ForkSource } from './fork/fork-source.js'
import { LiveTexts } from './records/live-text.js'

/** What the meta scope of a session holds. */
export interface SessionMeta {
  record: SessionRecord
  version: number
  lease?: Lease
  abort?: { executionId: string; at: number }
  resume?: { executionId: string; at: number }
  hint?: LogHint
  /** A delete has started (see {@link DELETING_PATH}). */
  deleting?: { at: number }
  /** The session is a fork (see {@link FORK_PATH}). */
  fork?: ForkRecord
}

/** Settings of a host, with defaults applied. */
export interface HostSettings {
  store: VfsStore
  namespace: string
  hostId: string
  agents: Record<string, AgentProfile>
  leaseMs: number
  pollMs: number
  heartbeatMs: number
  quota: OwnerQuota
  /** Only this host ever runs the store's sessions: a lease held by another holder is stale at once. */
  exclusive: boolean
  /** Budgets of every execution and of every owner (usage.ts). */
  budgets: HostBudgets
  /** Reads the original of a fork made from another store (fork-remote.ts). */
  forkSource?: (from: string, forkId: string) => ForkSource
}

/**
 * Work the host wires into its workspaces (host.ts): the context itself is plumbing and finishes
 * nothing. `catchUp`: the `files-changed` notices a dead host lost, logged when a workspace opens.
 */
export interface HostHooks {
  catchUp(sessionId: string, base: VersionedVfs): Promise<unknown>
}

/** State shared by the parts of one host: settings, store, logs, message boxes, workspaces, signals. */
export class HostContext {
  readonly workspaces: Workspaces
  /** Who writes each session's files now, and the `files-changed` events of their commits. */
  readonly fileEvents: FileEvents
  /** The store's session layout: the meta scope's requests, the work index, removals. */
  readonly storage: SessionStorage
  /** The owners' index (set by the host right after construction: the default one reads records through this context). */
  index!: OwnerIndex
  /** Live text of the executions running here (never stored): the driver publishes, observers subscribe. */
  readonly live = new LiveTexts()
  private readonly logs = new Map<string, EventLog>()

  constructor(
    readonly settings: HostSettings,
    readonly signals: SessionSignals,
    hooks: HostHooks,
  ) {
    this.fileEvents = new FileEvents((sessionId, body) => this.emit(sessionId, body))
    this.workspaces = new Workspaces(
      settings.store,
      settings.namespace,
      this.fileEvents,
      async sessionId => {
        const fork = (await loadRecords(this.store, this.namespace, scopeNames.meta(sessionId))).get(FORK_PATH)?.value as
          ForkRecord | undefined
        return fork && { from: fork.from, branch: fork.branch, ...(fork.baseScope !== undefined ? { baseScope: fork.baseScope } : {}) }
      },
      (sessionId, base) => hooks.catchUp(sessionId, base),
    )
    this.storage = new SessionStorage(settings.store, settings.namespace, settings.hostId)
  }

  get store() {
    return this.settings.store
  }
  get namespace() {
    return this.settings.namespace
  }

  log(sessionId: string): EventLog {
    let log = this.logs.get(sessionId)
    if (!log) {
      // The news carries the commit's lines: this host's tail of the session hands them out without reading them back.
      const publish = (_: unknown, lines: EventLine[]) => this.signals.publish(sessionId, { last: lines[lines.length - 1]?.seq, lines })
      this.logs.set(sessionId, (log = new EventLog(this.store, this.namespace, sessionId, publish)))
    }
    return log
  }

  forget(sessionId: string): void {
    this.logs.delete(sessionId)
  }

  box(sessionId: string): MessageBox {
    return new MessageBox(this.store, this.namespace, sessionId)
  }

  emit(sessionId: string, body: SessionEventBody): Promise<SessionEvent> {
    return this.log(sessionId).append(body)
  }

  /** The session's meta records, or undefined when there is no such session. */
  async meta(sessionId: string): Promise<SessionMeta | undefined> {
    if (typeof sessionId !== 'string' || !SESSION_ID.test(sessionId)) return undefined
    return metaOf(await this.storage.loadMeta(sessionId))
  }

  /**
   * Stored events after `after` as their JSON text, checking the session exists in the same round
   * trip (the meta scope loads with the first segments); `opened`: the meta a request read already.
   */
  async eventLines(sessionId: string, after: number, limit: number, opened?: SessionMeta): Promise<EventLine[]> {
    // A session the request opened was checked then: its log hint serves, no meta in the round trip.
    if (opened) return this.log(sessionId).readLines(after, limit, opened.hint ?? { segment: 0, first: 0 })
    if (typeof sessionId !== 'string' || !SESSION_ID.test(sessionId)) requireMeta(sessionId, undefined)
    const known = this.logs.has(sessionId)
    const log = this.log(sessionId)
    try {
      return await log.readLines(after, limit, records => requireMeta(sessionId, metaOf(records)).hint ?? { segment: 0, first: 0 })
    } catch (error) {
      // No log kept for an id that names no session.
      if (!known && this.logs.get(sessionId) === log) this.forget(sessionId)
      throw error
    }
  }

  /**
   * Changes the session record; resolves to the new record (undefined if the session is gone).
   * With `version`, only if the record is still at that version (else it resolves to undefined and
   * writes nothing).
   */
  update(
    sessionId: string,
    change: (record: SessionRecord) => SessionRecord | undefined,
    version?: number,
    known?: SessionMeta,
  ): Promise<SessionRecord | undefined> {
    const written = known
      ? this.writeKnown(sessionId, change, known)
      : this.storage.updateMeta<SessionRecord | undefined>(sessionId, records => {
          const current = records.get(SESSION_PATH)?.value as SessionRecord | undefined
          if (!current || (version !== undefined && versionOf(records, SESSION_PATH) !== version)) return { ops: [], value: undefined }
          const next = change(current)
          if (!next) return { ops: [], value: current }
          const record = { ...next, updatedAt: Date.now() }
          return { ops: [putJson(SESSION_PATH, record, versionOf(records, SESSION_PATH))], value: record }
        })
    return written.then(async record => {
      // An index that lists records (D1 on the edge) keeps its copy current; the record is durable already.
      if (record && this.index.changed) await this.index.changed(record).catch(() => undefined)
      return record
    })
  }

  /**
   * {@link update} on a record already read (`known`, at `known.version`), without reading it again:
   * a write conditional on that version. Resolves to undefined (nothing written) when it moved since.
   */
  private async writeKnown(
    sessionId: string,
    change: (record: SessionRecord) => SessionRecord | undefined,
    known: SessionMeta,
  ): Promise<SessionRecord | undefined> {
    const next = change(known.record)
    if (!next) return known.record
    const record = { ...next, updatedAt: Date.now() }
    try {
      await this.storage.commitMeta(sessionId, [putJson(SESSION_PATH, record, known.version)])
      return record
    } catch (error) {
      if (isVfsError(error, 'ECONFLICT')) return undefined
      throw error
    }
  }

  /** Stores the bytes a session's workspace holds in its owner's index (what the owner's byte quota sums). */
  recordBytes(owner: string, sessionId: string, bytes: number): Promise<void> {
    return this.index.setBytes(owner, sessionId, bytes)
  }

  /**
   * Moves the status as a close or a reopen does, when state.ts's `REQUEST_MOVES` allows it from the
   * stored status (checked in the same conditional write). Resolves to the record and whether it moved.
   */
  async requestStatus(sessionId: string, request: StatusRequest): Promise<{ record: SessionRecord | undefined; moved: boolean }> {
    let moved = false
    const record = await this.update(sessionId, r => {
      moved = false
      const to = requestMove(request, r.status)
      if (!to) return undefined
      moved = true
      const { closedAt: _closed, ...open } = r
      return to === 'closed' ? { ...r, status: to, closedAt: Date.now() } : { ...open, status: to }
    })
    return { record, moved }
  }

  /**
   * Sets the status (when the move is allowed: never out of `closed`) and logs a `status` event when
   * it changed. With `version`, only if the record is still at that version; with `touch`, the record
   * is written even when nothing changes (its version moves, so a settle on older facts cannot
   * overwrite it: see SessionDriver.settleStatus). Resolves to false when `version` did not match,
   * else to the record as it is now. `known`: the meta as the caller read it, written on without a
   * read (when the record moved since: with `version`, false; without, read and written as usual).
   * `executions`: the count of executions grows to it in the same write (an execution starts).
   */
  async setStatus(
    sessionId: string,
    status: SessionStatus,
    executionId?: string,
    when: { version?: number; touch?: boolean; known?: SessionMeta; executions?: number } = {},
  ): Promise<SessionRecord | true | false> {
    let changed = false
    let owner: string | undefined
    const change = (r: SessionRecord): SessionRecord | undefined => {
      owner = r.owner
      changed = false
      const same = r.status === status && (executionId === undefined || r.executionId === executionId)
      const moves = canMove(r.status, status) && (!same || when.touch === true)
      const executions = Math.max(r.executions, when.executions ?? 0)
      if (!moves && executions === r.executions) return undefined
      changed = moves && r.status !== status
      return { ...r, ...(moves ? { status, ...(executionId ? { executionId } : {}) } : {}), executions }
    }
    const known = when.known && (when.version === undefined || when.known.version === when.version) ? when.known : undefined
    let record = known ? await this.update(sessionId, change, undefined, known) : undefined
    if (!record && !(known && when.version !== undefined)) record = await this.update(sessionId, change, when.version)
    if (!record) return when.version === undefined
    // What maxRunningExecutions counts: set when a run starts (never refused here: a resume or an
    // answer goes on), cleared whenever the session settles in any other status, even unchanged.
    if (owner !== undefined && (status !== 'running' || changed))
      await this.index.setRunning?.(owner, sessionId, status === 'running').catch(() => undefined)
    if (changed) await this.emit(sessionId, { type: 'status', status })
    return record
  }
}

/** A session's meta records as {@link SessionMeta}, or undefined when they hold no session. */
function metaOf(records: RecordMap): SessionMeta | undefined {
  const record = records.get(SESSION_PATH)
  if (!record) return undefined
  return {
    record: record.value as SessionRecord,
    version: record.version,
    lease: records.get(LEASE_PATH)?.value as Lease | undefined,
    abort: records.get(ABORT_PATH)?.value as SessionMeta['abort'],
    resume: records.get(RESUME_PATH)?.value as SessionMeta['resume'],
    hint: records.get(LOG_PATH)?.value as LogHint | undefined,
    deleting: records.get(DELETING_PATH)?.value as SessionMeta['deleting'],
    fork: records.get(FORK_PATH)?.value as ForkRecord | undefined,
  }
}

/** The meta, or the "not found" error. */
function requireMeta(sessionId: string, meta: SessionMeta | undefined): SessionMeta {
  if (!meta) throw sessionNotFound(sessionId)
  return meta
}
