import { isVfsError } from 'agent-vfs'
import type { StoreOp, VfsStore } from 'agent-vfs'
import { deleteRecord, loadRecords, putJson, updateRecords, versionOf, type RecordMap } from './records/records.js'
import type { SessionRecord } from './types.js'

/**
 * Where a session host keeps things in the store: the only file that spells the layout. Every
 * scope is small and has one job, so a commit to one never rewrites another and a load reads
 * only what it needs.
 */

/** The session record, in the meta scope: a meta scope without it is no session. */
export const SESSION_PATH = '/session.json'
/** Who runs the session's executions now, until when (see leases.ts). */
export const LEASE_PATH = '/lease.json'
/** A durable abort request for one execution; spent when that execution is resumed after it ended interrupted. */
export const ABORT_PATH = '/abort.json'
/** A durable request to resume an interrupted execution. */
export const RESUME_PATH = '/resume.json'
/**
 * Written first by a delete, before it removes anything: a host running the session that sees it
 * (or no session) once its run stops removes what its run wrote, so a write racing the delete's
 * removals cannot outlive it.
 */
export const DELETING_PATH = '/deleting.json'
/** A forked session's meta record: its workspace is the branch `branch` of session `from`'s, taken at `version` (event `seq`). */
export const FORK_PATH = '/fork.json'
export interface ForkRecord {
  from: string
  branch: string
  version: number
  seq: number
  /** Set once the branch, the interrupted executions and the copied events are all there. */
  done?: boolean
  /**
   * The original lives in another store (the Worker: another Durable Object): the branch is a
   * detached one of this store, filled from the original page by page (fork-remote.ts).
   */
  remote?: boolean
  /** Remote: the last path copied so far (pages are sent in path order). */
  cursor?: string
  /** Remote: every page is copied. */
  copied?: boolean
  /** Set when the original was deleted: the branch is detached, opened from this scope (where it was branched from) alone. */
  baseScope?: string
}

/** Events per log segment: a segment is one scope, loaded whole when read. */
export const SEGMENT_EVENTS = 500

const META_PREFIX = 'session/'

export const scopeNames = {
  /** session.json, lease.json, abort.json, resume.json, deleting.json, log.json. */
  meta: (id: string) => `${META_PREFIX}${id}`,
  /** One file per message. */
  messages: (id: string) => `messages/${id}`,
  /** The session's workspace (files, /state of the agent runtime). */
  workspace: (id: string) => `workspace/${id}`,
  /** Event segment `n` holds sequences `n*SEGMENT_EVENTS + 1 … (n+1)*SEGMENT_EVENTS`. */
  events: (id: string, segment: number) => `events/${id}/${segment}`,
  /** One entry per session of an owner: the list, the quota. */
  owner: (owner: string) => `owner/${encodeURIComponent(owner)}`,
  /**
   * One entry per session with work a host must finish: an execution running somewhere, or a
   * request acknowledged (a message, an answer, an abort, a resume). What recovery looks at.
   * (Named `running` since the first layout; the name stays so stored data keeps working.)
   */
  work: 'running',
} as const

/** Segment holding a sequence number (>= 1). */
export const segmentOf = (seq: number) => Math.floor((seq - 1) / SEGMENT_EVENTS)

/** Session ids: `s` + 32 hex digits. Anything else is refused before it reaches the store. */
export const SESSION_ID = /^s[0-9a-f]{32}$/

/** A new random session id (`s` + 32 hex digits). */
export function newSessionId(): string {
  return 's' + crypto.randomUUID().replaceAll('-', '')
}

/** The ids of the sessions a store holds in `namespace` (every meta scope). */
export async function storedSessionIds(store: VfsStore, namespace: string): Promise<string[]> {
  return (await store.listScopes(namespace)).filter(s => s.startsWith(META_PREFIX)).map(s => s.slice(META_PREFIX.length))
}

/** A session's entry in the work index. */
export interface WorkEntry {
  sessionId: string
  owner: string
  /** What the entry was last written for: `run` (an execution runs) or the acknowledged request. */
  reason: 'run' | 'message' | 'answer' | 'abort' | 'resume' | 'reopen'
  executionId?: string
  at: number
  /**
   * The host that wrote it. Another host leaves an entry this fresh (younger than its lease period)
   * to its writer, which takes the lease next, as it would a live lease: the host that acknowledged
   * a request runs it, unless it dies first. Absent in entries stored before hosts signed them.
   */
  host?: string
}

/** The stored requests of a session: an abort of, or a resume of, one execution. */
export type RequestKind = 'abort' | 'resume'
const requestPath: Record<RequestKind, string> = { abort: ABORT_PATH, resume: RESUME_PATH }

const workPath = (sessionId: string) => `/${sessionId}.json`

/**
 * The session layout of one host's store and namespace: the meta scope's requests and marks, the
 * work index recovery reads, and the removal of a session's scopes. The session record itself
 * changes through {@link SessionStorage.updateMeta} (see context.ts).
 */
export class SessionStorage {
  constructor(
    readonly store: VfsStore,
    readonly namespace: string,
    /** This host's id: the work entries it writes carry it (see {@link WorkEntry.host}). */
    readonly hostId: string,
  ) {}

  /** The session's meta records (empty for an id that names no session). */
  loadMeta(sessionId: string): Promise<RecordMap> {
    return loadRecords(this.store, this.namespace, scopeNames.meta(sessionId))
  }

  /** Read-modify-write of the meta scope (see {@link updateRecords}). */
  updateMeta<T>(sessionId: string, change: Parameters<typeof updateRecords<T>>[3]): Promise<T> {
    return updateRecords(this.store, this.namespace, scopeNames.meta(sessionId), change)
  }

  /** Commits `ops` to the meta scope as they are (each conditional as it says). */
  async commitMeta(sessionId: string, ops: StoreOp[]): Promise<void> {
    await this.store.commit(this.namespace, scopeNames.meta(sessionId), ops)
  }

  /** Stores a request for `executionId` (replacing one of the same kind). */
  putRequest(sessionId: string, kind: RequestKind, executionId: string): Promise<void> {
    const path = requestPath[kind]
    return this.updateMeta(sessionId, records => ({
      ops: [putJson(path, { executionId, at: Date.now() }, versionOf(records, path))],
      value: undefined,
    }))
  }

  /** Removes the stored abort and resume requests: a resume of an interrupted execution used them up. */
  spendRequests(sessionId: string): Promise<void> {
    return this.updateMeta(sessionId, records => ({
      ops: [ABORT_PATH, RESUME_PATH].filter(p => records.has(p)).map(p => deleteRecord(p, versionOf(records, p))),
      value: undefined,
    }))
  }

  /** Marks the session as being deleted (before any removal; see {@link DELETING_PATH}). */
  markDeleting(sessionId: string): Promise<void> {
    return this.updateMeta(sessionId, records => ({
      ops: records.has(SESSION_PATH) && !records.has(DELETING_PATH) ? [putJson(DELETING_PATH, { at: Date.now() }, 0)] : [],
      value: undefined,
    }))
  }

  /** Stores a new session record (it must not exist). */
  async createRecord(record: SessionRecord): Promise<void> {
    await this.store.commit(this.namespace, scopeNames.meta(record.id), [putJson(SESSION_PATH, record, 0)])
  }

  /**
   * Puts the session into the work index. Written after the intent it stands for is durable and
   * before the request is acknowledged; every write gives the entry a new version, which is what
   * {@link SessionStorage.clearWork} checks.
   */
  markWork(entry: Omit<WorkEntry, 'at' | 'host'>): Promise<void> {
    const path = workPath(entry.sessionId)
    return updateRecords(this.store, this.namespace, scopeNames.work, records => ({
      ops: [putJson(path, { ...entry, at: Date.now(), host: this.hostId } satisfies WorkEntry, versionOf(records, path))],
      value: undefined,
    }))
  }

  /** The version of the session's work entry (0: none): read before deciding there is nothing to do. */
  async workVersion(sessionId: string): Promise<number> {
    return versionOf(await loadRecords(this.store, this.namespace, scopeNames.work), workPath(sessionId))
  }

  /**
   * Removes the session's work entry if it is still at `version`: work marked after the caller
   * looked (a message acknowledged meanwhile) keeps it. Resolves to whether it was removed.
   */
  async clearWork(sessionId: string, version: number): Promise<boolean> {
    if (version === 0) return true
    try {
      await this.store.commit(this.namespace, scopeNames.work, [deleteRecord(workPath(sessionId), version)])
      return true
    } catch (error) {
      if (isVfsError(error, 'ECONFLICT')) return false
      throw error
    }
  }

  /** Removes the session's work entry whatever its version (the session is gone). */
  dropWork(sessionId: string): Promise<void> {
    const path = workPath(sessionId)
    return updateRecords(this.store, this.namespace, scopeNames.work, records => ({
      ops: records.has(path) ? [deleteRecord(path, versionOf(records, path))] : [],
      value: undefined,
    }))
  }

  /** Every session with work to finish. */
  async workEntries(): Promise<WorkEntry[]> {
    return [...(await loadRecords(this.store, this.namespace, scopeNames.work)).values()].map(r => r.value as WorkEntry)
  }

  /** Deletes event segments `from` … `to` (inclusive). */
  async deleteSegments(sessionId: string, from: number, to: number): Promise<void> {
    for (let s = from; s <= to; s++) await this.store.deleteScope(this.namespace, scopeNames.events(sessionId, s))
  }

  deleteMessages(sessionId: string): Promise<void> {
    return this.store.deleteScope(this.namespace, scopeNames.messages(sessionId))
  }

  /** The meta scope: the last removal of a delete (until it is gone the session can be found and deleted again). */
  deleteMeta(sessionId: string): Promise<void> {
    return this.store.deleteScope(this.namespace, scopeNames.meta(sessionId))
  }

  sessionIds(): Promise<string[]> {
    return storedSessionIds(this.store, this.namespace)
  }
}
