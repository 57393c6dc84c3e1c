import { listExecutionIds, readExecution } from 'agent-vfs/agent'
import type { VersionedVfs } from 'agent-vfs'
import { versionAt, versionAtSeq } from './change-points.js'
import type { HostContext } from './context.js'
import { SessionError } from './errors.js'
import type { HostParts } from './host-parts.js'
import { idOf, type SessionRef } from './session-ref.js'
import { loadRecords, putJson, updateRecords } from './records.js'
import { FORK_PATH, SESSION_PATH, newSessionId, scopeNames, type ForkRecord } from './storage.js'
import type { EventLine, SessionEvent, SessionEventBody, SessionRecord } from './types.js'
import { copyRemoteWorkspace, FORK_EVENT_PAGE, type ForkSource } from './fork-copy.js'

/** Where a fork was taken: an event of the original's log, or a checkpoint of one of its executions. */
export type ForkPoint = { seq: number } | { checkpoint: { execution: string; revision: number } }

const EVENTS_PER_READ = 10_000

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

const finishing = new WeakMap<HostContext, Map<string, Promise<SessionRecord | undefined>>>()

/**
 * Completes a fork whose `/fork.json` is not `done` (idempotent; one run per session per host at a
 * time). A remote fork reads the original through `source`, or the host's `forkSource`.
 */
export function finishFork(ctx: HostContext, id: string, fork: ForkRecord, source?: ForkSource): Promise<SessionRecord | undefined> {
  let runs = finishing.get(ctx)
  if (!runs) finishing.set(ctx, (runs = new Map()))
  let run = runs.get(id)
  if (!run) {
    run = completeFork(ctx, id, fork, source).finally(() => runs.delete(id))
    runs.set(id, run)
  }
  return run
}

async function completeFork(ctx: HostContext, id: string, given: ForkRecord, source?: ForkSource): Promise<SessionRecord | undefined> {
  // The stored record: a copy interrupted earlier has stored how far it got.
  const fork = ((await loadRecords(ctx.store, ctx.namespace, scopeNames.meta(id))).get(FORK_PATH)?.value as ForkRecord | undefined) ?? given
  const remote = fork.remote ? (source ?? ctx.settings.forkSource?.(fork.from, id)) : undefined
  if (fork.remote && !remote)
    throw new SessionError('conflict', `the fork ${id} copies session ${fork.from} from another store, which this host cannot reach`)
  const base = await ctx.workspaces.base(fork.from)
  const ws = remote
    ? await copyRemoteWorkspace(ctx, id, fork, base, remote)
    : await base.openBranch(fork.branch).catch(() => base.branch({ name: fork.branch, at: fork.version }))
  const executions = await interruptUnfinished(ws)
  // Part of making the fork, like a seed: the log's notices of the fork's own commits start after it.
  const head = ws.version
  // The fork's host opens its own instance of the branch (see Workspaces): this one is done.
  await ws.close()
  const log = ctx.log(id)
  const copied = await log.lastSeq()
  const read = remote
    ? (after: number, limit: number) => remote.events(after, Math.min(limit, FORK_EVENT_PAGE))
    : (after: number, limit: number) => ctx.eventLines(fork.from, after, limit)
  if (copied < fork.seq) await copyEvents(ctx, read, id, copied, fork.seq)
  if ((await log.lastSeq()) === fork.seq)
    await ctx.emit(id, { type: 'session-forked', from: fork.from, fromSeq: fork.seq, version: fork.version, head })
  // The original keeps its pin of the point until the copy is complete.
  if (remote) await remote.release()
  await updateRecords(ctx.store, ctx.namespace, scopeNames.meta(id), records => {
    const current = records.get(FORK_PATH)
    return { ops: current ? [putJson(FORK_PATH, { ...(current.value as ForkRecord), done: true }, current.version)] : [], value: undefined }
  })
  return ctx.update(id, r => ({ ...r, executions }))
}

/** Marks the executions that had not ended at the fork's point as interrupted; resolves to how many executions there are. */
async function interruptUnfinished(ws: VersionedVfs): Promise<number> {
  const ids = await listExecutionIds(ws)
  for (const id of ids) {
    const record = await readExecution(ws, id)
    if (!record || record.status === 'completed' || record.status === 'failed' || record.status === 'interrupted') continue
    const { pendingId: _p, answeredPendingId: _a, ...rest } = record
    await ws.writeFile(`/state/executions/${id}/execution.json`, JSON.stringify({ ...rest, status: 'interrupted' }))
  }
  await ws.flush()
  return ids.length
}

async function copyEvents(
  ctx: HostContext,
  read: (after: number, limit: number) => Promise<EventLine[]>,
  to: string,
  after: number,
  upTo: number,
): Promise<void> {
  while (after < upTo) {
    const lines = await read(after, Math.min(EVENTS_PER_READ, upTo - after))
    if (lines.length === 0) break
    const appends: Promise<unknown>[] = []
    for (const line of lines) {
      if (line.seq > upTo) break
      const { seq: _s, at: _a, ...body } = JSON.parse(line.json) as SessionEvent
      appends.push(ctx.emit(to, body as SessionEventBody))
    }
    await Promise.all(appends)
    after = lines[lines.length - 1].seq
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
