import { listExecutionIds, readExecution } from 'agent-vfs/agent'
import type { VersionedVfs } from 'agent-vfs'
import type { HostContext } from '../context.js'
import { SessionError } from '../errors.js'
import { loadRecords, putJson, updateRecords } from '../records/records.js'
import { FORK_PATH, scopeNames, type ForkRecord } from '../storage.js'
import type { EventLine, SessionEvent, SessionEventBody, SessionRecord } from '../types.js'
import { copyRemoteWorkspace } from './fork-copy.js'
import { FORK_EVENT_PAGE, type ForkSource } from './fork-source.js'

// Finishing a fork (fork.ts starts it): idempotent, by whichever host reads a half-made one.

/** Events read per page when a fork copies its original's log. */
export const EVENTS_PER_READ = 10_000

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
