import type { VfsStore } from 'agent-vfs'
import { SessionError } from '../errors.js'
import { deleteRecord, loadRecords, putJson, updateRecords, versionOf, type RecordMap } from './records.js'
import { scopeNames } from '../storage.js'
import type { OwnerQuota, Page, SessionRecord } from '../types.js'
import { sumUsage, zeroUsage, type UsageTotals } from './usage.js'

/**
 * The quotas `npm run serve` and the Cloudflare Worker apply when none are given (docs/limits.md):
 * 100 sessions, 1 GiB of files, 4 executions running at once and 50 open event streams per owner.
 */
export const DEFAULT_OWNER_QUOTA: Readonly<Required<OwnerQuota>> = Object.freeze({
  maxSessions: 100,
  maxBytes: 1024 * 1024 * 1024,
  maxRunningExecutions: 4,
  maxStreams: 50,
})

/**
 * Where a host keeps each owner's sessions: the list, the session count and the bytes the owner's
 * quota sums. The host asks nothing else of it, so a deployment can keep the index elsewhere than
 * the sessions (the Cloudflare Worker keeps it in D1, one session per Durable Object). Every
 * method that checks a quota must check and change in one atomic step.
 */
export interface OwnerIndex {
  /** Adds a new session, refusing with `SessionError('quota')` when the owner holds `quota.maxSessions` already. */
  add(record: SessionRecord, quota: OwnerQuota): Promise<void>
  /** Removes a session's entry (and its bytes); nothing when there is none. */
  remove(owner: string, sessionId: string): Promise<void>
  /** An owner's sessions, newest first, paged; `next` is the cursor of the following page. */
  list(owner: string, page: { cursor?: string; limit: number }): Promise<Page<SessionRecord>>
  /** Bytes the owner's sessions other than `sessionId` hold. */
  othersBytes(owner: string, sessionId: string): Promise<number>
  /**
   * Sets the bytes a session holds. With `maxBytes`, refuses with `SessionError('quota')` (and
   * changes nothing) when the owner's total would exceed it.
   */
  setBytes(owner: string, sessionId: string, bytes: number, maxBytes?: number): Promise<void>
  /**
   * Marks a session as running an execution or not. With `maxRunning`, marking it running refuses
   * with `SessionError('too-many-running')` (and changes nothing) when the owner's other sessions
   * already run that many; checked and changed in one atomic step. An index without it enforces no
   * `maxRunningExecutions`.
   */
  setRunning?(owner: string, sessionId: string, running: boolean, maxRunning?: number): Promise<void>
  /** The session record changed (status, title, …): an index that lists records keeps its copy current. */
  changed?(record: SessionRecord): Promise<void>
  /** Stores what a session spent so far (usage.ts); an index without it keeps no owner usage and enforces no owner budget. */
  setUsage?(owner: string, sessionId: string, usage: UsageTotals): Promise<void>
  /** What the owner spent: in total (deleted sessions included, `except`'s entry left out) and per live session. */
  usage?(owner: string, except?: string): Promise<{ total: UsageTotals; sessions: Array<{ id: string; total: UsageTotals }> }>
}

/** An owner's `/usage.json`: sessions held now, and sessions ever created (the order of the list). */
interface OwnerUsage {
  sessions: number
  created: number
  /** What deleted sessions had spent: an owner's usage (and budget) outlives their sessions. */
  spent?: UsageTotals
}

/** An owner's entry for one session. */
interface OwnerEntry {
  id: string
  n: number
  createdAt: number
  bytes: number
  /** Running an execution (what `maxRunningExecutions` counts). */
  running?: boolean
  usage?: UsageTotals
}

const entryPath = (id: string) => `/sessions/${id}.json`

/**
 * Rewrites `/usage.json` as it is, conditional on its version: a check that sums the other entries
 * then conflicts with a concurrent check of the same owner in another process (which rewrites it
 * too) instead of both passing, since each writes only its own entry otherwise.
 */
const touchUsage = (current: RecordMap) =>
  putJson('/usage.json', current.get('/usage.json')?.value ?? { sessions: 0, created: 0 }, versionOf(current, '/usage.json'))

/**
 * The default index: one small scope per owner in the host's own store (`/usage.json` and one
 * `/sessions/<id>.json` per session), changed by conditional commits. `records` reads the session
 * records a page lists.
 */
export function storeOwnerIndex(
  store: VfsStore,
  namespace: string,
  records: (ids: string[]) => Promise<Array<SessionRecord | undefined>>,
): OwnerIndex {
  const scope = (owner: string) => scopeNames.owner(owner)
  return {
    async add(record, quota) {
      // Conditional on the usage version read: the quota holds even with concurrent creates.
      await updateRecords(store, namespace, scope(record.owner), current => {
        const usage = (current.get('/usage.json')?.value as OwnerUsage | undefined) ?? { sessions: 0, created: 0 }
        const max = quota.maxSessions
        if (max !== undefined && usage.sessions + 1 > max)
          throw new SessionError('quota', `Owner already has ${usage.sessions} sessions; the quota is ${max}`)
        // `created` only grows: it orders the owner's sessions even when two share a millisecond.
        const n = (usage.created ?? 0) + 1
        return {
          ops: [
            putJson('/usage.json', { ...usage, sessions: usage.sessions + 1, created: n }, versionOf(current, '/usage.json')),
            putJson(entryPath(record.id), { id: record.id, n, createdAt: record.createdAt, bytes: 0 } satisfies OwnerEntry, 0),
          ],
          value: undefined,
        }
      })
    },

    async remove(owner, sessionId) {
      await updateRecords(store, namespace, scope(owner), current => {
        if (!current.has(entryPath(sessionId))) return { ops: [], value: undefined }
        const usage = (current.get('/usage.json')?.value as OwnerUsage | undefined) ?? { sessions: 1, created: 0 }
        const gone = (current.get(entryPath(sessionId))!.value as OwnerEntry).usage
        const spent = gone ? { spent: sumUsage(usage.spent ?? zeroUsage(), gone) } : {}
        return {
          ops: [
            deleteRecord(entryPath(sessionId), versionOf(current, entryPath(sessionId))),
            putJson('/usage.json', { ...usage, ...spent, sessions: Math.max(0, usage.sessions - 1) }, versionOf(current, '/usage.json')),
          ],
          value: undefined,
        }
      })
    },

    async list(owner, { cursor, limit }) {
      const all = await loadRecords(store, namespace, scope(owner))
      const entries = [...all.entries()]
        .filter(([p]) => p.startsWith('/sessions/'))
        .map(([, r]) => r.value as OwnerEntry)
        .sort((a, b) => b.n - a.n)
      let start = 0
      if (cursor !== undefined) {
        const below = Number(cursor)
        if (!Number.isInteger(below)) throw new SessionError('invalid', 'cursor must be the `next` of a previous page')
        start = entries.findIndex(e => e.n < below)
        if (start < 0) start = entries.length
      }
      const page = entries.slice(start, start + limit)
      const items = (await records(page.map(e => e.id))).filter((r): r is SessionRecord => r !== undefined && r.owner === owner)
      const last = page[page.length - 1]
      return { items, ...(start + limit < entries.length && last ? { next: String(last.n) } : {}) }
    },

    async othersBytes(owner, sessionId) {
      const all = await loadRecords(store, namespace, scope(owner))
      let total = 0
      for (const [path, r] of all)
        if (path.startsWith('/sessions/') && path !== entryPath(sessionId)) total += (r.value as { bytes?: number }).bytes ?? 0
      return total
    },

    async setBytes(owner, sessionId, bytes, maxBytes) {
      await updateRecords(store, namespace, scope(owner), current => {
        const entry = current.get(entryPath(sessionId))
        if (!entry) return { ops: [], value: undefined }
        if (maxBytes !== undefined) {
          let others = 0
          for (const [path, r] of current)
            if (path.startsWith('/sessions/') && path !== entryPath(sessionId)) others += (r.value as { bytes?: number }).bytes ?? 0
          if (others + bytes > maxBytes)
            throw new SessionError('quota', `the files need ${others + bytes} bytes for this owner; the quota is ${maxBytes}`)
        }
        const ops = [putJson(entryPath(sessionId), { ...(entry.value as object), bytes }, entry.version)]
        return { ops: maxBytes !== undefined ? [...ops, touchUsage(current)] : ops, value: undefined }
      })
    },

    async setUsage(owner, sessionId, usage) {
      await updateRecords(store, namespace, scope(owner), current => {
        const entry = current.get(entryPath(sessionId))
        if (!entry) return { ops: [], value: undefined }
        return { ops: [putJson(entryPath(sessionId), { ...(entry.value as OwnerEntry), usage }, entry.version)], value: undefined }
      })
    },

    async usage(owner, except) {
      const all = await loadRecords(store, namespace, scope(owner))
      let total = (all.get('/usage.json')?.value as OwnerUsage | undefined)?.spent ?? zeroUsage()
      const sessions: Array<{ id: string; total: UsageTotals }> = []
      for (const [path, r] of all) {
        const e = r.value as OwnerEntry
        if (!path.startsWith('/sessions/') || !e.usage) continue
        sessions.push({ id: e.id, total: e.usage })
        if (e.id !== except) total = sumUsage(total, e.usage)
      }
      return { total, sessions }
    },

    async setRunning(owner, sessionId, running, maxRunning) {
      // Conditional on the versions read, like setBytes: two starts at once cannot both pass.
      await updateRecords(store, namespace, scope(owner), current => {
        const entry = current.get(entryPath(sessionId))
        if (!entry || Boolean((entry.value as OwnerEntry).running) === running) return { ops: [], value: undefined }
        if (running && maxRunning !== undefined) {
          let others = 0
          for (const [path, r] of current)
            if (path.startsWith('/sessions/') && path !== entryPath(sessionId) && (r.value as OwnerEntry).running) others++
          if (others >= maxRunning)
            throw new SessionError('too-many-running', `this owner already runs ${others} executions; the quota is ${maxRunning} at once`)
        }
        const ops = [putJson(entryPath(sessionId), { ...(entry.value as OwnerEntry), running }, entry.version)]
        if (running && maxRunning !== undefined) ops.push(touchUsage(current))
        return { ops, value: undefined }
      })
    },
  }
}
