import { createDetachedBranch, importBranchEntries } from 'agent-vfs/internal'
import type { VersionedVfs, VfsBranch } from 'agent-vfs'
import type { HostContext } from '../context.js'
import { putJson, updateRecords } from '../records/records.js'
import { FORK_PATH, scopeNames, type ForkRecord } from '../storage.js'
import type { ForkSource } from './fork-source.js'

// The fork's side of a fork across stores (fork-remote.ts): its copy of the original's workspace.

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
