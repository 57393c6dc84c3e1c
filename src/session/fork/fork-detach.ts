import { detachBranch } from 'agent-vfs/internal'
import type { VersionedVfs } from 'agent-vfs'
import type { HostContext } from '../context.js'
import { saveFork } from './fork-copy.js'

/** A fork's branch is named after the fork's session (fork.ts). */
const FORK_BRANCH = /^fork-(s[0-9a-f]{32})$/

/**
 * Before a session's workspace is deleted: every fork made from it (and every fork of those) is
 * detached, deepest first, so it holds its files in its own scope and outlives the original with
 * its versions and its own history (docs/sessions-history.md); the session's other branches are
 * discarded with it. Idempotent: a delete killed half-way and run again detaches what is left.
 * Resolves to the ids of the forks detached.
 */
export async function detachForksOf(ctx: HostContext, sessionId: string): Promise<string[]> {
  const detached: string[] = []
  await detachBelow(ctx, await ctx.workspaces.base(sessionId), detached, true)
  return detached
}

async function detachBelow(ctx: HostContext, ws: VersionedVfs, detached: string[], discardOthers: boolean): Promise<void> {
  for (const info of await ws.branches()) {
    const branch = await ws.openBranch(info.name)
    const forkId = FORK_BRANCH.exec(info.name)?.[1]
    if (!forkId) {
      // A review branch of the session being deleted goes with it; a fork's own branches stay its own.
      if (discardOthers) await branch.discard()
      continue
    }
    await detachBelow(ctx, branch, detached, false)
    await detachBranch(branch)
    await saveFork(ctx, forkId, fork => ({ ...fork, baseScope: ws.scope }))
    // The fork's open instance read through the original: it reopens on the detached branch.
    await ctx.workspaces.evict(forkId)
    detached.push(forkId)
  }
}
