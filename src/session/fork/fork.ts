import type { VersionedVfs } from 'agent-vfs'
import { versionAt, versionAtSeq } from '../run/change-points.js'
import type { HostContext } from '../context.js'
import { SessionError } from '../errors.js'
import type { HostParts } from '../host/host-parts.js'
import { idOf, type SessionRef } from '../session-ref.js'
import { putJson } from '../records/records.js'
import { FORK_PATH, SESSION_PATH, newSessionId, scopeNames, type ForkRecord } from '../storage.js'
import type { SessionRecord } from '../types.js'
import { EVENTS_PER_READ, finishFork } from './fork-finish.js'
import type { ForkSource } from './fork-source.js'

/** Where a fork was taken: an event of the original's log, or a checkpoint of one of its executions. */
export type ForkPoint = { seq: number } | { checkpoint: { execution: string; revision: number } }

/**
 * Forks a session: a new session of the same owner (the owner's quota applies) whose workspace
 * is a branch of the original's at the point (O(1): nothing is copied) and whose log holds the
 * original's events up to it, then a `session-forked` event. An execution that had not ended at
 * the point is `interrupted` in the fork: resume it, or send a message to start another.
 *
 * The record and `/fork.json` (where the workspace lives, what is left to copy) are written in one
 * commit first; the rest is idempotent and finished by {@link finishFork} on any host that opens
 * the fork, so a host killed half-way leaves a fork the next reader completes.
 */
export async function forkSession(
  parts: HostParts,
  session: SessionRef,
  at: ForkPoint,
  options: { title?: string } = {},
): Promise<SessionRecord> {
  const { ctx } = parts
  const { record: original } = await parts.open(session)
  const sessionId = idOf(session)
  const base = await ctx.workspaces.base(sessionId)
  const { seq, version } = await resolveForkPoint(ctx, sessionId, base, at)
  const id = newSessionId()
  const bytes = (await base.at(version)).usage().bytes
  return startFork(ctx, id, original, options.title, bytes, { from: sessionId, branch: `fork-${id}`, version, seq })
}

/**
 * Creates a fork's session: its index entry (the owner's session quota) and bytes (the byte
 * quota), then its record and `/fork.json` in one commit, then the rest ({@link finishFork}).
 */
export async function startFork(
  ctx: HostContext,
  id: string,
  original: Pick<SessionRecord, 'owner' | 'profile' | 'title'>,
  title: string | undefined,
  bytes: number,
  fork: ForkRecord,
  source?: ForkSource,
): Promise<SessionRecord> {
  const now = Date.now()
  const record: SessionRecord = {
    id,
    owner: original.owner,
    profile: original.profile,
    title: (title ?? `${original.title} (fork)`).slice(0, 200),
    status: 'idle',
    createdAt: now,
    updatedAt: now,
    executions: 0,
  }
  await ctx.index.add(record, ctx.settings.quota)
  await chargeForkBytes(ctx, record, bytes)
  await ctx.store.commit(ctx.namespace, scopeNames.meta(id), [putJson(SESSION_PATH, record, 0), putJson(FORK_PATH, fork, 0)])
  return (await finishFork(ctx, id, fork, source)) ?? record
}

/** The event a fork point names and the workspace's version then. */
export async function resolveForkPoint(
  ctx: HostContext,
  sessionId: string,
  base: VersionedVfs,
  at: ForkPoint,
): Promise<{ seq: number; version: number }> {
  const seq = 'seq' in at ? at.seq : await checkpointSeq(ctx, sessionId, at.checkpoint.execution, at.checkpoint.revision)
  const version =
    'seq' in at
      ? await versionAtSeq(ctx, sessionId, seq)
      : await versionAt(ctx, sessionId, base, { execution: at.checkpoint.execution, checkpoint: at.checkpoint.revision })
  return { seq, version }
}

/**
 * The fork's files count against its owner's bytes like any upload: over `maxBytes` the fork is
 * refused (`quota`, 413) and its index entry removed, before anything of it is written.
 */
export async function chargeForkBytes(ctx: HostContext, record: SessionRecord, bytes: number): Promise<void> {
  try {
    await ctx.index.setBytes(record.owner, record.id, bytes, ctx.settings.quota.maxBytes)
  } catch (error) {
    await ctx.index.remove(record.owner, record.id).catch(() => undefined)
    throw error
  }
}

async function checkpointSeq(ctx: HostContext, sessionId: string, executionId: string, revision: number): Promise<number> {
  for (let after = 0; ;) {
    const lines = await ctx.eventLines(sessionId, after, EVENTS_PER_READ)
    if (lines.length === 0) throw new SessionError('not-found', `execution ${executionId} has no checkpoint of plan revision ${revision}`)
    for (const line of lines) {
      if (line.type !== 'checkpoint') continue
      const e = JSON.parse(line.json) as { executionId?: string; revision?: number }
      if (e.executionId === executionId && e.revision === revision) return line.seq
    }
    after = lines[lines.length - 1].seq
  }
}
