import type { HistoryEntry, VersionedVfs } from 'agent-vfs'
import { withActor, type VfsBranch } from 'agent-vfs'
import { createBranchTools, createChangeTools, type ToolSet } from 'agent-vfs/agent'
import type { SessionActor } from '../types.js'
import { runView } from '../records/workspace.js'
import type { HostContext } from '../context.js'
import { SessionError } from '../errors.js'
import type { SessionEvent } from '../types.js'

/**
 * A point of a session's workspace history: a version (the workspace right after that commit),
 * an event sequence (as it was when that event was logged), an execution's start or end (before its
 * first change, after its last), or the checkpoint of one of its plan revisions.
 */
export type ChangePoint =
  { version: number } | { seq: number } | { execution: string; edge: 'start' | 'end' } | { execution: string; checkpoint: number }

/** The parsed query form of a point (`12`, `seq:40`, `e0001:start`, `e0001:checkpoint:3`; see change-schemas.ts). */
export function parsePoint(text: string): ChangePoint {
  if (/^\d+$/.test(text)) return { version: Number(text) }
  if (text.startsWith('seq:')) return { seq: Number(text.slice(4)) }
  const [execution, what, revision] = text.split(':')
  if (what === 'checkpoint') return { execution, checkpoint: Number(revision) }
  return { execution, edge: what === 'start' ? 'start' : 'end' }
}

/**
 * Whether a change's actor tag is the execution's (see SessionActor): its own writes, or the landing
 * of its proposal (`writes: 'propose'`, tagged `{ kind: 'api', proposal }`), so its Changes and its
 * Undo cover what it proposed once that landed.
 */
export const byExecution = (executionId: string) => (actor: unknown) => {
  if (typeof actor !== 'object' || actor === null) return false
  const a = actor as { kind?: unknown; executionId?: unknown; proposal?: unknown }
  return (a.kind === 'execution' && a.executionId === executionId) || (a.kind === 'api' && a.proposal === executionId)
}

/** The workspace version a point names. */
export async function versionAt(ctx: HostContext, sessionId: string, ws: VersionedVfs, point: ChangePoint): Promise<number> {
  if ('version' in point) {
    if (point.version > ws.version)
      throw new SessionError('not-found', `the workspace has no version ${point.version} yet (it is at ${ws.version})`)
    return point.version
  }
  if ('seq' in point) return versionAtSeq(ctx, sessionId, point.seq)
  if ('checkpoint' in point) {
    const path = `/state/executions/${point.execution}/checkpoints/r${String(point.checkpoint).padStart(4, '0')}.json`
    const first = (await ws.history({ path, limit: 1 }))[0]
    if (!first) throw new SessionError('not-found', `execution ${point.execution} has no checkpoint of plan revision ${point.checkpoint}`)
    return first.version
  }
  const own: HistoryEntry[] = await ws.history({ actor: byExecution(point.execution) })
  if (own.length === 0) {
    // An execution that changed nothing: both ends are the version its start was logged at.
    const start = await seqOfExecutionStart(ctx, sessionId, point.execution)
    return versionAtSeq(ctx, sessionId, start)
  }
  return point.edge === 'start' ? own[0].version - 1 : own[own.length - 1].version
}

/**
 * The version of the workspace when event `seq` was logged: the newest version a `files-changed`,
 * `session-forked` or `session-created` event at or before it carries (0: none).
 */
export async function versionAtSeq(ctx: HostContext, sessionId: string, seq: number): Promise<number> {
  const log = ctx.log(sessionId)
  const last = await log.lastSeq()
  if (seq > last) throw new SessionError('not-found', `the session has no event ${seq} yet (its last is ${last})`)
  let version = 0
  for (let after = 0; after < seq;) {
    const lines = await ctx.eventLines(sessionId, after, Math.min(10_000, seq - after))
    if (lines.length === 0) break
    for (const line of lines) {
      if (line.seq > seq) break
      // A seed (`session-created`) and a fork's start (`session-forked`) carry the version they begin at too.
      if (line.type === 'files-changed' || line.type === 'session-forked' || line.type === 'session-created') {
        const e = JSON.parse(line.json) as { version?: number; head?: number }
        version = Math.max(version, e.head ?? e.version ?? 0)
      }
    }
    after = lines[lines.length - 1].seq
  }
  return version
}

async function seqOfExecutionStart(ctx: HostContext, sessionId: string, executionId: string): Promise<number> {
  for (let after = 0; ;) {
    const lines = await ctx.eventLines(sessionId, after, 10_000)
    if (lines.length === 0) throw new SessionError('not-found', `There is no execution ${JSON.stringify(executionId.slice(0, 20))}`)
    for (const line of lines) {
      if (line.type !== 'execution-start') continue
      const e = JSON.parse(line.json) as SessionEvent & { executionId?: string }
      if (e.executionId === executionId) return line.seq
    }
    after = lines[lines.length - 1].seq
  }
}

/** The change tools of an execution whose profile asks for them: "since" is the execution's start. */
export async function executionChangeTools(ctx: HostContext, sessionId: string, executionId: string): Promise<ToolSet> {
  const base = await ctx.workspaces.base(sessionId)
  const since = await versionAt(ctx, sessionId, base, { execution: executionId, edge: 'start' }).catch(() => base.version)
  return createChangeTools(base, { since })
}

/**
 * The attempt tools of an execution (`branchTools: true`): attempts are branches of what its files
 * live in (the workspace, or its proposal's branch), seen through the session's run view, their
 * writes and landings tagged as the execution's.
 */
export function executionBranchTools(files: VersionedVfs | VfsBranch, actor: SessionActor): ToolSet {
  return createBranchTools(files, { view: branch => runView(withActor(branch, actor)), actor })
}
