import type { BranchInfo, HistoryEntry, LandResult, VersionedVfs, VfsBranch, VfsDiff } from 'agent-vfs'
import { byExecution, versionAt, type ChangePoint } from '../run/change-points.js'
import { SessionError } from '../errors.js'
import type { HostParts } from './host-parts.js'
import { API_ACTOR } from '../records/actors.js'
import { UPLOAD_ROOTS } from '../records/workspace.js'
import { storedBytes } from '../records/usage.js'

/** What {@link SessionChanges.history} reads. */
export interface SessionHistoryQuery {
  /** One path, or (with a trailing `/`) everything below it. */
  path?: string
  /** Only the changes this execution made. */
  execution?: string
  /** Commits after this version (exclusive) … */
  after?: number
  /** … up to this one (inclusive). */
  upTo?: number
  /** At most this many commits, oldest first. Default 100, at most 1,000. */
  limit?: number
}

/** What {@link SessionChanges.diff} compares. */
export interface SessionDiffOptions {
  /** Default: the empty workspace (version 0). */
  from?: ChangePoint
  /** Default: now. */
  to?: ChangePoint
  /** Only this path or what is below it. */
  path?: string
  /** Line patches for text files. Default true. */
  patches?: boolean
}

/** A session's workspace history: history, diffs, undoing an execution, branches. `host.changes`. */
export interface SessionChanges {
  history(sessionId: string, query?: SessionHistoryQuery): Promise<HistoryEntry[]>
  diff(sessionId: string, options?: SessionDiffOptions): Promise<VfsDiff>
  /**
   * Undoes what an execution changed outside `/state` in one commit, checking that every file is
   * still as the execution left it; otherwise writes nothing and returns the conflicts. Refused
   * (`busy`) while the execution runs.
   */
  revertExecution(sessionId: string, executionId: string): Promise<LandResult>
  /** A copy-on-write branch of the workspace as it is now (O(1)): a parallel attempt, or an execution's proposal. */
  branch(sessionId: string, name?: string): Promise<VfsBranch>
  branches(sessionId: string): Promise<BranchInfo[]>
  diffBranch(sessionId: string, name: string): Promise<VfsDiff>
  /** Lands the branch in one commit (or the conflicts, nothing written); the branch is gone after it lands. */
  commitBranch(sessionId: string, name: string): Promise<LandResult>
  discardBranch(sessionId: string, name: string): Promise<void>
}

/** Branches that hold a fork's workspace: another session's, not to be landed or dropped from here. */
export const FORK_BRANCH = /^fork-/

export function changeMethods(parts: HostParts): { changes: SessionChanges } {
  const { ctx } = parts
  /** The session's whole workspace with its history (not found: throws). */
  const versioned = async (sessionId: string): Promise<VersionedVfs> => {
    const { record } = await parts.open(sessionId)
    return (await ctx.workspaces.base(record.id)) as VersionedVfs
  }
  const branchOf = async (sessionId: string, name: string): Promise<VfsBranch> => {
    const ws = await versioned(sessionId)
    return ws.openBranch(name).catch(() => {
      throw new SessionError('not-found', `the session has no branch ${JSON.stringify(String(name).slice(0, 64))}`)
    })
  }
  const landed = async (sessionId: string, result: LandResult): Promise<LandResult> => {
    if (result.ok) {
      const { record, ws } = await parts.open(sessionId)
      await ctx.recordBytes(record.owner, sessionId, storedBytes(ws.usage())).catch(() => undefined)
    }
    return result
  }

  const changes: SessionChanges = {
    async history(sessionId, query = {}) {
      const ws = await versioned(sessionId)
      const limit = Math.min(1000, Math.max(1, Math.floor(Number(query.limit) || 100)))
      return ws.history({
        ...(query.path !== undefined ? { path: query.path } : {}),
        ...(query.execution !== undefined ? { actor: byExecution(query.execution) } : {}),
        ...(query.after !== undefined ? { after: query.after } : {}),
        ...(query.upTo !== undefined ? { upTo: query.upTo } : {}),
        limit,
      })
    },

    async diff(sessionId, options = {}) {
      const ws = await versioned(sessionId)
      const from = options.from ? await versionAt(ctx, sessionId, ws, options.from) : 0
      const to = options.to ? await versionAt(ctx, sessionId, ws, options.to) : ws.version
      return ws.diff(from, to, { patches: options.patches ?? true, ...(options.path !== undefined ? { paths: [options.path] } : {}) })
    },

    async revertExecution(sessionId, executionId) {
      const record = await parts.requireOpen(sessionId)
      const running = parts.driver.active.get(sessionId)?.executionId === executionId
      if (running || (record.executionId === executionId && record.status !== 'idle'))
        throw new SessionError('busy', `execution ${executionId} has not ended`)
      const ws = await versioned(sessionId)
      const own = await ws.history({ actor: byExecution(executionId), limit: 1 })
      if (own.length === 0 && !(await executionExists(parts, sessionId, executionId)))
        throw new SessionError('not-found', `There is no execution ${JSON.stringify(executionId.slice(0, 20))}`)
      // /state is the runtime's record of what happened (the execution itself among it): it stays.
      const result = await ws.revert({ after: 0, actor: byExecution(executionId), paths: UPLOAD_ROOTS }, { actor: API_ACTOR })
      return landed(sessionId, result)
    },

    async branch(sessionId, name) {
      await parts.requireOpen(sessionId)
      if (name !== undefined && FORK_BRANCH.test(name)) throw new SessionError('invalid', "branch names starting with fork- are the forks'")
      return (await versioned(sessionId)).branch(name !== undefined ? { name } : {})
    },

    async branches(sessionId) {
      return (await versioned(sessionId)).branches()
    },

    async diffBranch(sessionId, name) {
      return (await branchOf(sessionId, name)).diffBase({ patches: true })
    },

    async commitBranch(sessionId, name) {
      await parts.requireOpen(sessionId)
      if (FORK_BRANCH.test(name)) throw new SessionError('conflict', `branch ${name} holds a forked session's workspace`)
      return landed(sessionId, await (await branchOf(sessionId, name)).commit({ actor: API_ACTOR }))
    },

    async discardBranch(sessionId, name) {
      if (FORK_BRANCH.test(name)) throw new SessionError('conflict', `branch ${name} holds a forked session's workspace`)
      await (await branchOf(sessionId, name)).discard()
    },
  }
  return { changes }
}

async function executionExists(parts: HostParts, sessionId: string, executionId: string): Promise<boolean> {
  const { ws } = await parts.open(sessionId)
  return ws.exists(`/state/executions/${executionId}/execution.json`)
}
