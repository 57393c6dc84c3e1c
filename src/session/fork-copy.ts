import { createDetachedBranch, importBranchEntries } from 'agent-vfs/internal'
import type { StoredEntry, VersionedVfs, VfsBranch } from 'agent-vfs'
import type { HostContext } from './context.js'
import { putJson, updateRecords } from './records.js'
import { FORK_PATH, scopeNames, type ForkRecord } from './storage.js'
import type { EventLine } from './types.js'

// The fork's side of a fork across stores (fork-remote.ts): its copy of the original's workspace.

/** One page of the workspace at the fork's point: entries in path order after the cursor, and where the next page starts. */
export interface ForkPage {
  entries: StoredEntry[]
  next?: string
}

/** How the fork's host reads the original (the Worker: RPC to the original's Durable Object). */
export interface ForkSource {
  page(cursor: string): Promise<ForkPage>
  events(after: number, limit: number): Promise<EventLine[]>
  /** The fork is complete: the original drops its pin. */
  release(): Promise<void>
}

/** Events per page copied from the original's log. */
export const FORK_EVENT_PAGE = 500

/**
 * The fork's workspace in this store: a detached branch (versions after the fork's) filled page by
 * page from the original; the progress is stored after each page, so a copy interrupted resumes
 * where it stopped (the pages are blind puts: one sent twice lands the same).
 */
export async function copyRemoteWorkspace(
  ctx: HostContext,
  id: string,
  fork: ForkRecord,
  base: VersionedVfs,
  source: ForkSource,
): Promise<VfsBranch> {
  const branch = await base.openBranch(fork.branch).catch(() => createDetachedBranch(base, fork.branch, fork.version))
  if (fork.copied) return branch
  for (let cursor = fork.cursor ?? ''; ;) {
    const page = await source.page(cursor)
    await importBranchEntries(branch, page.entries)
    if (!page.next) break
    cursor = page.next
    await saveFork(ctx, id, f => ({ ...f, cursor }))
  }
  await saveFork(ctx, id, f => ({ ...f, copied: true }))
  return branch
}

/** Rewrites the fork's `/fork.json` (nothing when it is gone). */
export async function saveFork(ctx: HostContext, id: string, change: (fork: ForkRecord) => ForkRecord): Promise<void> {
  await updateRecords(ctx.store, ctx.namespace, scopeNames.meta(id), records => {
    const current = records.get(FORK_PATH)
    return {
      ops: current ? [putJson(FORK_PATH, change(current.value as ForkRecord), current.version)] : [],
      value: undefined,
    }
  })
}
