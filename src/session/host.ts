import { isVfsError } from 'agent-vfs'
import type { RunVfs } from 'agent-vfs'
import { listExecutionIds, readEvents, readExecution, type ExecutionRecord } from 'agent-vfs/agent'
import { answerPending, listPending, readPending } from 'agent-vfs/agent'
import { HostContext } from './context.js'
import { SessionDriver } from './driver.js'
import { SessionError } from './errors.js'
import { deleteFile, uploadPath, writeFiles } from './files.js'
import type { SessionHost, SessionHostOptions } from './host-api.js'
import { collectGarbage, recoverSessions } from './maintenance.js'
import { LogTails, type TailListener } from './log-tail.js'
import { observeLog } from './observe.js'
import { StreamCounter } from './stream-quota.js'
import { sessionTailSource } from './tail-source.js'
import { admit, type Refusal } from './state.js'
import { SEGMENT_EVENTS, SESSION_ID, newSessionId, scopeNames, segmentOf } from './storage.js'
import { storeOwnerIndex } from './owner-index.js'
import { combineSignals, localSignals } from './signals.js'
import type { SessionEvent, SessionMessage, SessionRecord } from './types.js'

export type { GcOptions, GcReport, SessionHost, SessionHostOptions, UploadFile } from './host-api.js'

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
  // Observers of a session share one reader of its log (see log-tail.ts).
  const tails = new LogTails((id) => sessionTailSource(ctx, id), ctx.settings.pollMs)
  const streams = new StreamCounter(ctx.settings.quota.maxStreams, options.streamsElsewhere)
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
      await ctx.storage.createRecord(record)
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
      // Messages queued before the close, or an answer, may wait: recovery finds them if we die now.
      await ctx.storage.markWork({ sessionId, owner: meta.record.owner, reason: 'reopen' })
      void driver.kick(sessionId)
      return (await ctx.require(sessionId)).record
    },

    async delete(sessionId) {
      const meta = await ctx.require(sessionId)
      if (meta.record.status !== 'closed') await host.close(sessionId)
      await driver.settled(sessionId)
      // Before any removal: a host still running the session (elsewhere) sees it when its run stops
      // and removes what it wrote after our removals (see SessionDriver.purge).
      await ctx.storage.markDeleting(sessionId)
      const hint = meta.hint ?? (await ctx.log(sessionId).hint())
      const last = await ctx.log(sessionId).lastSeq()
      await ctx.storage.deleteSegments(sessionId, hint.first, Math.max(hint.segment, last > 0 ? segmentOf(last) : 0))
      await ctx.storage.deleteMessages(sessionId)
      await ctx.workspaces.remove(sessionId)
      await ctx.storage.dropWork(sessionId)
      await index.remove(meta.record.owner, sessionId)
      // The meta scope last: until it is gone the session can still be found and deleted again.
      await ctx.storage.deleteMeta(sessionId)
      ctx.forget(sessionId)
    },

    async send(sessionId, { text, steer }) {
      const record = await requireOpen(sessionId)
      if (typeof text !== 'string' || text.trim() === '' || text.length > MAX_MESSAGE) throw new SessionError('invalid', `a message needs text of 1 to ${MAX_MESSAGE} characters`)
      // A message to an idle session starts an execution: it takes one of the owner's running slots
      // first, atomically in the index (released when the session stops running), or is refused.
      const maxRunning = ctx.settings.quota.maxRunningExecutions
      const reserve = maxRunning !== undefined && record.status === 'idle' && index.setRunning
      if (reserve) await index.setRunning!(record.owner, sessionId, true, maxRunning)
      let message: SessionMessage
      try {
        message = await ctx.box(sessionId).add(text, steer ? 'steer' : 'follow-up')
      } catch (error) {
        if (reserve) await index.setRunning!(record.owner, sessionId, false).catch(() => undefined)
        throw error
      }
      // Durable intent: the message, then its work entry, then the acknowledgement (see docs/recovery.md).
      await ctx.storage.markWork({ sessionId, owner: record.owner, reason: 'message' })
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
      const record = await requireOpen(sessionId)
      const { ws } = await openSession(sessionId)
      const pending = typeof pendingId === 'string' && /^e\d{4,}-p\d+$/.test(pendingId) ? await readPending(ws, pendingId) : undefined
      refuse(admit('answer', { status: record.status, ...(pending ? { pending: { kind: pending.kind, answered: pending.answer !== undefined } } : {}) }), `Nothing is pending with id ${JSON.stringify(String(pendingId).slice(0, 64))}`)
      try {
        await answerPending(ws, pendingId, answer)
      } catch (error) {
        if (isVfsError(error)) throw error
        throw new SessionError('invalid', (error as Error).message)
      }
      await ctx.storage.markWork({ sessionId, owner: record.owner, reason: 'answer' })
      await ctx.emit(sessionId, { type: 'pending-answered', pendingId, answer })
      void driver.kick(sessionId)
    },

    async abort(sessionId) {
      const meta = await ctx.require(sessionId)
      const executionId = meta.record.executionId
      const { status } = meta.record
      if (status === 'waiting_approval' || status === 'waiting_input') {
        const what = status === 'waiting_approval' ? 'approval' : 'an answer'
        throw new SessionError('not-running', `Session ${sessionId} waits for ${what} (GET /sessions/${sessionId}/pending), so nothing runs to abort; answer it instead (deny refuses an approval)`)
      }
      refuse(admit('abort', { status, ...(executionId ? { executionId } : {}) }), `Session ${sessionId} has no running execution (it is ${status})`)
      await requestAbort(sessionId, executionId!)
    },

    async resume(sessionId) {
      const record = await requireOpen(sessionId)
      const { ws } = await openSession(sessionId)
      const ids = await listExecutionIds(ws)
      const last = ids.length ? await readExecution(ws, ids[ids.length - 1]) : undefined
      refuse(admit('resume', { status: record.status, ...(last ? { last: { id: last.id, status: last.status } } : {}) }), `Session ${sessionId} has no interrupted execution to resume`)
      await ctx.storage.putRequest(sessionId, 'resume', last!.id)
      await ctx.storage.markWork({ sessionId, owner: record.owner, reason: 'resume', executionId: last!.id })
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
      return (async function* () {
        await ctx.require(sessionId)
        const source = {
          read: (after: number, limit: number) => ctx.log(sessionId).readLines(after, limit),
          subscribe: (listener: TailListener, pollMs?: number) => tails.subscribe(sessionId, listener, pollMs),
        }
        yield* observeLog(source, { heartbeatMs: ctx.settings.heartbeatMs, ...observeOptions })
      })()
    },

    tail: (sessionId, listener, pollMs) => tails.subscribe(sessionId, listener, pollMs),

    openStream: (owner) => streams.open(owner),

    async workspace(sessionId) {
      return (await openSession(sessionId)).ws
    },

    async writeFiles(sessionId, files) {
      const record = await requireOpen(sessionId)
      return writeFiles(ctx, record, () => openSession(sessionId).then((o) => o.ws), files)
    },

    async deleteFile(sessionId, path) {
      const record = await requireOpen(sessionId)
      return deleteFile(ctx, record, (await openSession(sessionId)).ws, path)
    },

    recover: () => recoverSessions(ctx, driver),

    gc: (gcOptions = {}) => collectGarbage(ctx, driver, (id) => host.delete(id), gcOptions),

    settled: (sessionId) => driver.settled(sessionId),

    async stop() {
      driver.stop()
      await ctx.signals.close?.()
    },
  }

  /** Throws the refusal of the state machine, if any, with `message`. */
  function refuse(refusal: Refusal | undefined, message: string): void {
    if (refusal) throw new SessionError(refusal.code, refusal.code === 'closed' ? `Session is closed` : message)
  }

  async function requestAbort(sessionId: string, executionId: string): Promise<void> {
    await ctx.storage.putRequest(sessionId, 'abort', executionId)
    const meta = await ctx.meta(sessionId)
    if (meta) await ctx.storage.markWork({ sessionId, owner: meta.record.owner, reason: 'abort', executionId })
    await ctx.emit(sessionId, { type: 'abort-requested', executionId })
    await driver.checkAbort(sessionId)
  }

  return host
}

export { uploadPath }
export { SEGMENT_EVENTS }

/** A page's `after`: a whole number >= 0 (anything else: 0). */
const pageAfter = (after: unknown) => Math.max(0, Math.floor(Number(after) || 0))
/** A page's `limit`: a whole number in 1 … max (anything else: 1,000). */
const pageLimit = (limit: unknown, max: number) => Math.min(max, Math.max(1, Math.floor(Number(limit) || 1000)))
