import { isWithin } from '../contract/paths.js'
import type { StoredChange } from '../contract/history.js'
import type { FileChange, LandResult, RevertTarget } from './history-types.js'
import { land, type Landing } from './land.js'
import { blobsFor, historyOf } from './rebuild.js'
import { toFileChange } from './file-change.js'
import { dirNode } from './tree.js'
import type { StoreVfs } from './vfs.js'

/**
 * Undoes changes as one group commit (land.ts): each path goes back to what it held before the
 * first undone change to it, provided it still holds what the last undone change left; otherwise
 * nothing is written and the conflicts are listed. Redo is the revert of the revert's changes.
 */
export async function revert(vfs: StoreVfs, target: RevertTarget, actor: string | undefined): Promise<LandResult> {
  const history = historyOf(vfs.storeBelow, 'revert')
  const changes = 'changes' in target ? [...target.changes] : await selected(vfs, target)
  const byPath = new Map<string, FileChange[]>()
  for (const c of [...changes].sort((a, b) => a.versionAfter - b.versionAfter)) {
    const list = byPath.get(c.path)
    if (list) list.push(c)
    else byPath.set(c.path, [c])
  }
  const firsts = [...byPath.values()].map(list => list[0])
  const blobs = await blobsFor(history, vfs.namespace, vfs.scope, firsts.map(toStored))
  const landings: Landing[] = []
  for (const [path, list] of byPath) {
    const first = list[0]
    const last = list[list.length - 1]
    const expected = last.op === 'delete' ? null : { kind: last.kind, version: last.versionAfter }
    const node =
      first.versionBefore === 0
        ? null
        : first.hashBefore
          ? { kind: 'file' as const, data: blobs.get(first.hashBefore)!, version: 0, pending: true, mtime: Date.now(), ctime: Date.now() }
          : dirNode(Date.now(), 0, true)
    // Created and removed again within what is undone: nothing to put back, but it must still be absent.
    if (expected === null && node === null) continue
    landings.push({ path, expected, node })
  }
  return land(vfs, landings, actor)
}

/** The changes of commits in `(after, upTo]`, filtered by actor and paths. */
async function selected(vfs: StoreVfs, target: Exclude<RevertTarget, { changes: readonly FileChange[] }>): Promise<FileChange[]> {
  const history = historyOf(vfs.storeBelow, 'revert')
  const stored = await history.changes(vfs.namespace, vfs.scope, { after: target.after, upTo: target.upTo })
  return stored
    .map(toFileChange)
    .filter(c => (target.actor ? target.actor(c.actor) : true) && (!target.paths || target.paths.some(p => isWithin(c.path, p))))
}

function toStored(c: FileChange): StoredChange {
  return { ...c, version: c.versionAfter, actor: undefined }
}
