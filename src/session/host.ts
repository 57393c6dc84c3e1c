import { isVfsError } from 'agent-vfs'
import type { VfsStore } from 'agent-vfs'
import { listExecutionIds, readEvents, readExecution, type ExecutionRecord } from 'agent-vfs/agent'
import { answerPending, listPending, readPending, type PendingAnswer, type PendingSummary } from 'agent-vfs/agent'
import type { ExecutionEvent } from 'agent-vfs/agent'
import type { RunVfs } from 'agent-vfs'
import { normalizePath, isWithin } from 'agent-vfs'
import { ABORT_PATH, DELETING_PATH, HostContext, RESUME_PATH, SESSION_PATH } from './context.js'
import { SessionDriver } from './driver.js'
import { SessionError } from './errors.js'
import { LOG_PATH, type LogHint } from './event-log.js'
import { observeLog, type ObserveOptions } from './observe.js'
import { deleteRecord, loadRecords, putJson, updateRecords, versionOf } from './records.js'
import { SEGMENT_EVENTS, SESSION_ID, newSessionId, scopeNames, segmentOf } from './scopes.js'
import { storeOwnerIndex, type OwnerIndex } from './owner-index.js'
import { combineSignals, localSignals, type SessionSignals } from './signals.js'
import type { AgentProfile, EventLine, Heartbeat, OwnerQuota, Page, SessionEvent, SessionMessage, SessionRecord } from './types.js'
import { UPLOAD_ROOTS, pruneRunArchives } from './workspace.js'
import type { Lease } from './leases.js'

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
  /** The session; with `owner`, another owner's session is not found. Resumes an orphaned execution it finds. */
  get(sessionId: string, owner?: string): Promise<SessionRecord>
  close(sessionId: string): Promise<SessionRecord>
  reopen(sessionId: string): Promise<SessionRecord>
  delete(sessionId: string): Promise<void>
  /** Sends a message: starts an execution, or is queued as a follow-up, or (`steer`) goes to the running execution at its next window. */
  send(sessionId: string, message: { text: string; steer?: boolean }): Promise<SessionMessage>
  messages(sessionId: string): Promise<SessionMessage[]>
  pending(sessionId: string): Promise<PendingSummary[]>
  /** Answers a pending approval or question; the execution continues. */
  answer(sessionId: string, pendingId: string, answer: PendingAnswer): Promise<void>
  /** Records an abort of the running execution; it ends `interrupted` at its next model or tool call. */
  abort(sessionId: string): Promise<void>
  /** Resumes an interrupted execution. */
  resume(sessionId: string): Promise<void>
  executions(sessionId: string): Promise<ExecutionRecord[]>
  execution(sessionId: string, executionId: string): Promise<{ record: ExecutionRecord; events: ExecutionEvent[] }>
  /** Stored events with `seq > after`. */
  events(sessionId: string, options?: { after?: number; limit?: number }): Promise<SessionEvent[]>
  /**
   * Stored events with `seq > after` as their stored JSON text: what a catch-up serves without
   * parsing them. Pages of up to `limit` events (default 1,000, at most 10,000), ending early
   * (with at least one event) once a page holds 4 MiB of text; ask again after the last `seq`.
   */
  eventLines(sessionId: string, options?: { after?: number; limit?: number }): Promise<EventLine[]>
  /** Events after `after`, stored then live; see {@link ObserveOptions}. */
  observe(sessionId: string, options?: ObserveOptions): AsyncIterable<SessionEvent | Heartbeat>
  /** The session's workspace, fresh from the store. Write through {@link SessionHost.writeFiles}. */
  workspace(sessionId: string): Promise<RunVfs>
  /** Writes files into the workspace in one commit, within the owner's quota. */
  writeFiles(sessionId: string, files: UploadFile[]): Promise<string[]>
  deleteFile(sessionId: string, path: string): Promise<void>
  /** Resumes executions whose host died (lease expired). Resolves to the sessions it took on. */
  recover(): Promise<string[]>
  gc(options: GcOptions): Promise<GcReport>
  /** Resolves when this host has no work in progress on the session (tests, shutdown). */
  settled(sessionId: string): Promise<void>
  /** Stops taking work; does not wait for running executions. */
  stop(): Promise<void>
}

const DEFAULT_NAMESPACE = 'agent-vfs-sessions'
const MAX_TITLE = 200
const MAX_MESSAGE = 100_000
const MAX_OWNER = 256

/**
 * Creates a session host over any workspace store. Isomorphic: Web APIs only, so the same host
 * runs in Node, a browser tab or worker, and workerd. Several hosts may share one store (two Node
 * servers on one Postgres, two tabs on one IndexedDB): leases decide which one runs a session's
 * execution, the event log keeps one sequence, and an abort or answer given to any host reaches
 * the execution wherever it runs.
 */
export function createSessionHost(options: SessionHostOptions): SessionHost {
  if (!options?.store || typeof options.store.commit !== 'function') throw new TypeError('createSessionHost needs { store }: memoryStore(), postgresStore(...), …')
  if (!options.agents || Object.keys(options.agents).length === 0) throw new TypeError('createSessionHost needs { agents }: at least one agent profile by name')
  const ctx = new HostContext(
    {
      store: options.store,
      namespace: options.namespace ?? DEFAULT_NAMESPACE,
      hostId: options.hostId ?? `h-${crypto.randomUUID()}`,
      agents: options.agents,
      leaseMs: options.leaseMs ?? 30_000,
      pollMs: options.pollMs ?? 1000,
      heartbeatMs: options.heartbeatMs ?? 15_000,
      quota: options.quota ?? {},
      exclusive: options.exclusive ?? false,
    },
    combineSignals(localSignals(), options.signals),
  )
  ctx.index = options.ownerIndex ?? storeOwnerIndex(ctx.store, ctx.namespace, (ids) => Promise.all(ids.map(async (id) => (await ctx.meta(id))?.record)))
  const driver = new SessionDriver(ctx)
  const { store, namespace } = ctx
  const index = ctx.index
  const checkOwner = (owner: string) => {
    if (typeof owner !== 'string' || owner === '' || owner.length > MAX_OWNER) throw new SessionError('invalid', `owner must be a non-empty string of at most ${MAX_OWNER} characters`)
  }

  const othersBytes = (owner: string, sessionId: string) => index.othersBytes(owner, sessionId)

  const recordBytes = (owner: string, sessionId: string, bytes: number) => ctx.recordBytes(owner, sessionId, bytes)

  async function workspace(sessionId: string, owner: string): Promise<RunVfs> {
    const max = ctx.settings.quota.maxBytes
    return ctx.workspaces.view(sessionId, max === undefined ? undefined : Math.max(0, max - (await othersBytes(owner, sessionId))))
  }

  async function openSession(sessionId: string): Promise<{ record: SessionRecord; ws: RunVfs }> {
    const meta = await ctx.require(sessionId)
    const ws = await workspace(sessionId, meta.record.owner)
    // Another process may have written since this instance loaded.
    if (!driver.active.has(sessionId)) await ws.refresh()
    return { record: meta.record, ws }
  }

  async function requireOpen(sessionId: string): Promise<SessionRecord> {
    const meta = await ctx.require(sessionId)
    if (meta.record.status === 'closed') throw new SessionError('closed', `Session ${sessionId} is closed`)
    return meta.record
  }

  const host: SessionHost = {
    hostId: ctx.settings.hostId,

    async create({ owner, profile, title, id: givenId }) {
      checkOwner(owner)
      if (typeof profile !== 'string' || !Object.prototype.hasOwnProperty.call(ctx.settings.agents, profile)) {
        throw new SessionError('unknown-profile', `There is no agent profile ${JSON.stringify(String(profile).slice(0, 64))} (profiles: ${Object.keys(ctx.settings.agents).join(', ')})`)
      }
      const cleanTitle = String(title ?? '').slice(0, MAX_TITLE)
      if (givenId !== undefined && (typeof givenId !== 'string' || !SESSION_ID.test(givenId))) throw new SessionError('invalid', 'a session id is `s` and 32 hex digits')
      const id = givenId ?? newSessionId()
      if (givenId !== undefined && (await ctx.meta(id))) throw new SessionError('conflict', `Session ${id} exists already`)
      const now = Date.now()
      const record: SessionRecord = { id, owner, profile, title: cleanTitle, status: 'idle', createdAt: now, updatedAt: now, executions: 0 }
      // The owner index first, which checks the quota atomically; then the session itself.
      await index.add(record, ctx.settings.quota)
      await store.commit(namespace, scopeNames.meta(id), [putJson(SESSION_PATH, record, 0)])
      const seed = ctx.settings.agents[profile].seed
      if (seed) {
        const ws = await workspace(id, owner)
        await seed(ws)
        await ws.flush()
      }
      await ctx.emit(id, { type: 'session-created', owner, profile, title: cleanTitle })
      return record
    },

    async list(owner, { cursor, limit = 20 } = {}) {
      checkOwner(owner)
      const size = Math.min(100, Math.max(1, Math.floor(Number(limit) || 20)))
      return index.list(owner, { ...(cursor !== undefined ? { cursor } : {}), limit: size })
    },

    async get(sessionId, owner) {
      const meta = await ctx.require(sessionId, owner)
      // Lazy recovery: a running session whose host stopped renewing its lease.
      if (meta.record.status === 'running' && (!meta.lease || meta.lease.expiresAt < Date.now() || (ctx.settings.exclusive && meta.lease.holder !== ctx.settings.hostId))) void driver.kick(sessionId)
      return meta.record
    },

    async close(sessionId) {
      const meta = await ctx.require(sessionId)
      if (meta.record.status === 'closed') return meta.record
      const run = driver.active.get(sessionId)
      if (meta.record.status === 'running' && meta.record.executionId) await requestAbort(sessionId, meta.record.executionId)
      if (run) await driver.settled(sessionId)
      const record = await ctx.update(sessionId, (r) => ({ ...r, status: 'closed', closedAt: Date.now() }))
      await ctx.emit(sessionId, { type: 'session-closed' })
      return record!
    },

    async reopen(sessionId) {
      const meta = await ctx.require(sessionId)
      if (meta.record.status !== 'closed') return meta.record
      await ctx.update(sessionId, (r) => {
        const { closedAt: _closed, ...rest } = r
        return { ...rest, status: 'idle' }
      })
      await ctx.emit(sessionId, { type: 'session-reopened' })
      await driver.settleStatus(sessionId)
      void driver.kick(sessionId)
      return (await ctx.require(sessionId)).record
    },

    async delete(sessionId) {
      const meta = await ctx.require(sessionId)
      if (meta.record.status !== 'closed') await host.close(sessionId)
      await driver.settled(sessionId)
      // Before any removal: a host still running the session (elsewhere) sees it when its run stops
      // and removes what it wrote after our removals (see SessionDriver.purge).
      await updateRecords(store, namespace, scopeNames.meta(sessionId), (records) => ({
        ops: records.has(SESSION_PATH) && !records.has(DELETING_PATH) ? [putJson(DELETING_PATH, { at: Date.now() }, 0)] : [],
        value: undefined,
      }))
      const hint = meta.hint ?? (await ctx.log(sessionId).hint())
      const last = await ctx.log(sessionId).lastSeq()
      for (let s = hint.first; s <= Math.max(hint.segment, last > 0 ? segmentOf(last) : 0); s++) await store.deleteScope(namespace, scopeNames.events(sessionId, s))
      await store.deleteScope(namespace, scopeNames.messages(sessionId))
      await ctx.workspaces.remove(sessionId)
      await updateRecords(store, namespace, scopeNames.running, (records) => ({
        ops: records.has(`/${sessionId}.json`) ? [deleteRecord(`/${sessionId}.json`, versionOf(records, `/${sessionId}.json`))] : [],
        value: undefined,
      }))
      await index.remove(meta.record.owner, sessionId)
      // The meta scope last: until it is gone the session can still be found and deleted again.
      await store.deleteScope(namespace, scopeNames.meta(sessionId))
      ctx.forget(sessionId)
    },

    async send(sessionId, { text, steer }) {
      await requireOpen(sessionId)
      if (typeof text !== 'string' || text.trim() === '' || text.length > MAX_MESSAGE) throw new SessionError('invalid', `a message needs text of 1 to ${MAX_MESSAGE} characters`)
      const message = await ctx.box(sessionId).add(text, steer ? 'steer' : 'follow-up')
      await ctx.emit(sessionId, { type: 'message', n: message.n, text, mode: message.mode })
      void driver.kick(sessionId)
      return message
    },

    async messages(sessionId) {
      await ctx.require(sessionId)
      return ctx.box(sessionId).list()
    },

    async pending(sessionId) {
      const { ws } = await openSession(sessionId)
      return listPending(ws)
    },

    async answer(sessionId, pendingId, answer) {
      await requireOpen(sessionId)
      const { ws } = await openSession(sessionId)
      const pending = typeof pendingId === 'string' && /^e\d{4,}-p\d+$/.test(pendingId) ? await readPending(ws, pendingId) : undefined
      if (!pending || pending.answer) throw new SessionError('not-waiting', `Nothing is pending with id ${JSON.stringify(String(pendingId).slice(0, 64))}`)
      try {
        await answerPending(ws, pendingId, answer)
      } catch (error) {
        if (isVfsError(error)) throw error
        throw new SessionError('invalid', (error as Error).message)
      }
      await ctx.emit(sessionId, { type: 'pending-answered', pendingId, answer })
      void driver.kick(sessionId)
    },

    async abort(sessionId) {
      const meta = await ctx.require(sessionId)
      const { status } = meta.record
      if (status === 'waiting_approval' || status === 'waiting_input') {
        const what = status === 'waiting_approval' ? 'approval' : 'an answer'
        throw new SessionError('not-running', `Session ${sessionId} waits for ${what} (GET /sessions/${sessionId}/pending), so nothing runs to abort; answer it instead (deny refuses an approval)`)
      }
      if (status !== 'running' || !meta.record.executionId) throw new SessionError('not-running', `Session ${sessionId} has no running execution (it is ${status})`)
      await requestAbort(sessionId, meta.record.executionId)
    },

    async resume(sessionId) {
      await requireOpen(sessionId)
      const { ws } = await openSession(sessionId)
      const ids = await listExecutionIds(ws)
      const last = ids.length ? await readExecution(ws, ids[ids.length - 1]) : undefined
      if (last?.status !== 'interrupted') throw new SessionError('not-interrupted', `Session ${sessionId} has no interrupted execution to resume`)
      await updateRecords(store, namespace, scopeNames.meta(sessionId), (records) => ({ ops: [putJson(RESUME_PATH, { executionId: last.id, at: Date.now() }, versionOf(records, RESUME_PATH))], value: undefined }))
      void driver.kick(sessionId)
    },

    async executions(sessionId) {
      const { ws } = await openSession(sessionId)
      const out: ExecutionRecord[] = []
      for (const id of await listExecutionIds(ws)) {
        const r = await readExecution(ws, id)
        if (r) out.push(r)
      }
      return out
    },

    async execution(sessionId, executionId) {
      const { ws } = await openSession(sessionId)
      const record = typeof executionId === 'string' && /^e\d{4,}$/.test(executionId) ? await readExecution(ws, executionId) : undefined
      if (!record) throw new SessionError('not-found', `There is no execution ${JSON.stringify(String(executionId).slice(0, 32))}`)
      return { record, events: await readEvents(ws, executionId) }
    },

    async events(sessionId, { after = 0, limit = 1000 } = {}) {
      const lines = await ctx.eventLines(sessionId, pageAfter(after), pageLimit(limit, 1000))
      return lines.map((l) => JSON.parse(l.json) as SessionEvent)
    },

    async eventLines(sessionId, { after = 0, limit = 1000 } = {}) {
      return ctx.eventLines(sessionId, pageAfter(after), pageLimit(limit, 10_000))
    },

    observe(sessionId, observeOptions = {}) {
      const log = ctx.log(sessionId)
      const subscribe = (wake: () => void) => {
        const off = ctx.signals.subscribe(sessionId, wake)
        // The store's own notifications (IndexedDB across tabs): the segments around the tail, and
        // the meta scope, whose log hint moves when a new segment starts (then the watch follows).
        const segmentWatches = new Map<number, () => void>()
        let closed = false
        const follow = () => {
          void log.hint().then((h) => {
            if (closed) return
            for (const [s, unwatch] of segmentWatches) if (s < h.segment) (unwatch(), segmentWatches.delete(s))
            for (let s = h.segment; s <= h.segment + 1; s++) if (!segmentWatches.has(s)) segmentWatches.set(s, store.watch!(namespace, scopeNames.events(sessionId, s), wake))
          }, () => undefined)
        }
        const offMeta = store.watch
          ? store.watch(namespace, scopeNames.meta(sessionId), () => {
              follow()
              wake()
            })
          : undefined
        if (store.watch) follow()
        return () => {
          closed = true
          off()
          offMeta?.()
          for (const unwatch of segmentWatches.values()) unwatch()
        }
      }
      return (async function* () {
        await ctx.require(sessionId)
        yield* observeLog(log, subscribe, { pollMs: ctx.settings.pollMs, heartbeatMs: ctx.settings.heartbeatMs, ...observeOptions })
      })()
    },

    async workspace(sessionId) {
      return (await openSession(sessionId)).ws
    },

    async writeFiles(sessionId, files) {
      const record = await requireOpen(sessionId)
      if (!Array.isArray(files) || files.length === 0) throw new SessionError('invalid', 'give at least one file')
      const paths = files.map((f) => uploadPath(f.path))
      if (new Set(paths).size !== paths.length) throw new SessionError('invalid', 'two files have the same path')
      const { ws } = await openSession(sessionId)
      const encoder = new TextEncoder()
      const datas = files.map((f) => (typeof f.data === 'string' ? encoder.encode(f.data) : f.data))
      const max = ctx.settings.quota.maxBytes
      if (max !== undefined) {
        let bytes = ws.usage().bytes
        for (const [i, p] of paths.entries()) bytes += datas[i].byteLength - ((await ws.exists(p)) ? (await ws.stat(p)).size : 0)
        // Reserved in the index before the write, atomically with the owner's total.
        await index.setBytes(record.owner, sessionId, bytes, max)
      }
      // Issued together: one commit for the whole upload, all or nothing.
      try {
        await Promise.all(paths.map((p, i) => ws.seed(p, datas[i])))
      } catch (error) {
        // The write failed: the reservation gives way to what the workspace holds.
        if (max !== undefined) await recordBytes(record.owner, sessionId, ws.usage().bytes).catch(() => undefined)
        throw error
      }
      await recordBytes(record.owner, sessionId, ws.usage().bytes)
      return paths
    },

    async deleteFile(sessionId, path) {
      const record = await requireOpen(sessionId)
      const p = uploadPath(path)
      const { ws } = await openSession(sessionId)
      const base = await ctx.workspaces.base(sessionId)
      if (!(await ws.exists(p))) throw new SessionError('not-found', `There is no file ${JSON.stringify(p)}`)
      await base.deleteFile(p)
      await recordBytes(record.owner, sessionId, ws.usage().bytes)
    },

    async recover() {
      const records = await loadRecords(store, namespace, scopeNames.running)
      const taken: string[] = []
      for (const r of records.values()) {
        const { sessionId } = r.value as { sessionId: string }
        const meta = await ctx.meta(sessionId)
        if (!meta) continue
        const lease = meta.lease as Lease | undefined
        if (lease && lease.expiresAt > Date.now() && lease.holder !== ctx.settings.hostId && !ctx.settings.exclusive) continue
        taken.push(sessionId)
        void driver.kick(sessionId)
      }
      return taken
    },

    async gc({ closedOlderThan, keepEvents, keepRunArchives } = {}) {
      const report: GcReport = { sessionsDeleted: [], segmentsDeleted: 0, archivesDeleted: 0 }
      const ids = (await store.listScopes(namespace)).filter((s) => s.startsWith('session/')).map((s) => s.slice('session/'.length))
      for (const id of ids) {
        const meta = await ctx.meta(id)
        if (!meta) continue
        if (closedOlderThan !== undefined && meta.record.status === 'closed' && (meta.record.closedAt ?? 0) <= Date.now() - closedOlderThan) {
          await host.delete(id)
          report.sessionsDeleted.push(id)
          continue
        }
        if (keepEvents !== undefined) report.segmentsDeleted += await trimEvents(id, Math.max(0, keepEvents))
        if (keepRunArchives !== undefined && !driver.active.has(id)) report.archivesDeleted += await pruneRunArchives(await ctx.workspaces.base(id), keepRunArchives)
      }
      return report
    },

    settled: (sessionId) => driver.settled(sessionId),

    async stop() {
      driver.stop()
      await ctx.signals.close?.()
    },
  }

  async function requestAbort(sessionId: string, executionId: string): Promise<void> {
    await updateRecords(store, namespace, scopeNames.meta(sessionId), (records) => ({ ops: [putJson(ABORT_PATH, { executionId, at: Date.now() }, versionOf(records, ABORT_PATH))], value: undefined }))
    await ctx.emit(sessionId, { type: 'abort-requested', executionId })
    await driver.checkAbort(sessionId)
  }

  /** Deletes whole segments holding only events older than the last `keep`. */
  async function trimEvents(sessionId: string, keep: number): Promise<number> {
    const log = ctx.log(sessionId)
    const last = await log.lastSeq()
    const hint = await log.hint()
    const firstKept = last - keep + 1
    const keepSegment = firstKept <= 1 ? 0 : segmentOf(firstKept)
    let deleted = 0
    for (let s = hint.first; s < keepSegment; s++) {
      await store.deleteScope(namespace, scopeNames.events(sessionId, s))
      deleted++
    }
    log.dropCache()
    if (keepSegment > hint.first) {
      await updateRecords(store, namespace, scopeNames.meta(sessionId), (records) => {
        const h = (records.get(LOG_PATH)?.value as LogHint | undefined) ?? { segment: 0, first: 0 }
        return { ops: [putJson(LOG_PATH, { segment: Math.max(h.segment, keepSegment), first: keepSegment }, versionOf(records, LOG_PATH))], value: undefined }
      })
    }
    return deleted
  }

  return host
}

/** A path a person may write: normalised, under an upload root (never /state), not a root itself. */
export function uploadPath(path: unknown): string {
  if (typeof path !== 'string') throw new SessionError('invalid', 'a file path must be a string')
  let p: string
  try {
    p = normalizePath(path.startsWith('/') ? path : `/${path}`)
  } catch (error) {
    throw new SessionError('invalid', `bad file path ${JSON.stringify(path.slice(0, 200))}: ${(error as Error).message}`)
  }
  if (!UPLOAD_ROOTS.some((root) => isWithin(p, root) && p !== root)) throw new SessionError('invalid', `files go under ${UPLOAD_ROOTS.join(', ')}, not ${JSON.stringify(p.slice(0, 200))}`)
  return p
}

export { SEGMENT_EVENTS }

/** A page's `after`: a whole number >= 0 (anything else: 0). */
const pageAfter = (after: unknown) => Math.max(0, Math.floor(Number(after) || 0))
/** A page's `limit`: a whole number in 1 … max (anything else: 1,000). */
const pageLimit = (limit: unknown, max: number) => Math.min(max, Math.max(1, Math.floor(Number(limit) || 1000)))
