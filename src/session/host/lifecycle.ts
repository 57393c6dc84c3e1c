import { requestAbort } from './conversation.js'
import { detachForksOf } from '../fork/fork-detach.js'
import { SessionError } from '../errors.js'
import type { SessionHost } from '../host-api.js'
import type { HostParts } from './host-parts.js'
import { idOf } from '../session-ref.js'
import { requestMove } from '../state.js'
import { SESSION_ID, newSessionId, segmentOf } from '../storage.js'
import type { SessionRecord } from '../types.js'

const MAX_TITLE = 200
const MAX_OWNER = 256

/** The host's session lifecycle: create, list, get, close, reopen, delete. */
export function lifecycleMethods(parts: HostParts): Pick<SessionHost, 'create' | 'list' | 'open' | 'get' | 'close' | 'reopen' | 'delete'> {
  const { ctx, driver } = parts
  const lifecycle: ReturnType<typeof lifecycleMethods> = {
    async create({ owner, profile, title, id: givenId }) {
      checkOwner(owner)
      if (typeof profile !== 'string' || !Object.prototype.hasOwnProperty.call(ctx.settings.agents, profile)) {
        throw new SessionError(
          'unknown-profile',
          `There is no agent profile ${JSON.stringify(String(profile).slice(0, 64))} (profiles: ${Object.keys(ctx.settings.agents).join(', ')})`,
        )
      }
      const cleanTitle = String(title ?? '').slice(0, MAX_TITLE)
      if (givenId !== undefined && (typeof givenId !== 'string' || !SESSION_ID.test(givenId)))
        throw new SessionError('invalid', 'a session id is `s` and 32 hex digits')
      const id = givenId ?? newSessionId()
      if (givenId !== undefined && (await ctx.meta(id))) throw new SessionError('conflict', `Session ${id} exists already`)
      const now = Date.now()
      const record: SessionRecord = {
        id,
        owner,
        profile,
        title: cleanTitle,
        status: 'idle',
        createdAt: now,
        updatedAt: now,
        executions: 0,
      }
      // The owner index first, which checks the quota atomically; then the session itself.
      await ctx.index.add(record, ctx.settings.quota)
      await ctx.storage.createRecord(record)
      const seed = ctx.settings.agents[profile].seed
      if (seed) {
        const ws = await parts.workspace(id, owner)
        // Part of creating the session: its files are there before its first event, not news.
        await ctx.fileEvents.quietly(id, async () => {
          await seed(ws)
          await ws.flush()
        })
      }
      // Its version is where the log's notices of commits start (file-catch-up.ts).
      const version = (await ctx.workspaces.base(id)).version
      await ctx.emit(id, { type: 'session-created', owner, profile, title: cleanTitle, version })
      return record
    },

    async list(owner, { cursor, limit = 20 } = {}) {
      checkOwner(owner)
      const size = Math.min(100, Math.max(1, Math.floor(Number(limit) || 20)))
      return ctx.index.list(owner, { ...(cursor !== undefined ? { cursor } : {}), limit: size })
    },

    async open(sessionId, owner) {
      const meta = await parts.load(sessionId, owner)
      const { lease } = meta
      // Lazy recovery: a running session whose host stopped renewing its lease. Without a lease, a
      // record written within the last lease period is work just acknowledged: its host takes the lease next.
      const { exclusive, hostId, leaseMs } = ctx.settings
      const now = Date.now()
      const orphaned = lease
        ? lease.expiresAt < now || (exclusive && lease.holder !== hostId)
        : exclusive || meta.record.updatedAt + leaseMs < now
      if (meta.record.status === 'running' && orphaned) void driver.kick(sessionId)
      return parts.opened(meta)
    },

    async get(ref, owner) {
      return typeof ref === 'string' ? (await lifecycle.open(ref, owner)).record : (await parts.load(ref, owner)).record
    },

    async close(ref) {
      const meta = await parts.load(ref)
      const sessionId = idOf(ref)
      if (!requestMove('close', meta.record.status)) return meta.record
      const run = driver.active.get(sessionId)
      if (meta.record.status === 'running' && meta.record.executionId) await requestAbort(parts, sessionId, meta.record.executionId)
      if (run) await driver.settled(sessionId)
      // Through the table, in the write itself: of two closes at once, one closes (and logs it).
      const { record, moved } = await ctx.requestStatus(sessionId, 'close')
      if (moved) await ctx.emit(sessionId, { type: 'session-closed' })
      return record ?? (await parts.load(sessionId)).record
    },

    async reopen(ref) {
      const meta = await parts.load(ref)
      const sessionId = idOf(ref)
      if (!requestMove('reopen', meta.record.status)) return meta.record
      const { record, moved } = await ctx.requestStatus(sessionId, 'reopen')
      if (!moved) return record ?? meta.record
      await ctx.emit(sessionId, { type: 'session-reopened' })
      await driver.settleStatus(sessionId)
      // Messages queued before the close, or an answer, may wait: recovery finds them if we die now.
      await ctx.storage.markWork({ sessionId, owner: meta.record.owner, reason: 'reopen' })
      void driver.kick(sessionId)
      return (await parts.load(sessionId)).record
    },

    async delete(ref) {
      const meta = await parts.load(ref)
      const sessionId = idOf(ref)
      if (meta.record.status !== 'closed') await lifecycle.close(sessionId)
      await driver.settled(sessionId)
      // Before any removal: a host still running the session (elsewhere) sees it when its run stops
      // and removes what it wrote after our removals (see SessionDriver.purge).
      await ctx.storage.markDeleting(sessionId)
      const hint = meta.hint ?? (await ctx.log(sessionId).hint())
      const last = await ctx.log(sessionId).lastSeq()
      await ctx.storage.deleteSegments(sessionId, hint.first, Math.max(hint.segment, last > 0 ? segmentOf(last) : 0))
      await ctx.storage.deleteMessages(sessionId)
      // Forks of this session read its workspace: they take their own copy before it goes.
      await detachForksOf(ctx, sessionId)
      await ctx.workspaces.remove(sessionId)
      await ctx.storage.dropWork(sessionId)
      await ctx.index.remove(meta.record.owner, sessionId)
      // The meta scope last: until it is gone the session can still be found and deleted again.
      await ctx.storage.deleteMeta(sessionId)
      ctx.forget(sessionId)
    },
  }
  return lifecycle
}

function checkOwner(owner: string): void {
  if (typeof owner !== 'string' || owner === '' || owner.length > MAX_OWNER)
    throw new SessionError('invalid', `owner must be a non-empty string of at most ${MAX_OWNER} characters`)
}
