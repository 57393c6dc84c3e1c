import type { StoredEntry } from '../contract/store.js'
import type { DiffLimits, MergeConflict, VfsConflict } from './history-types.js'
import type { Landing } from './land.js'
import { mergeFiles, type BothChanged } from './merge-files.js'
import type { Node, Tree } from './tree.js'

/** What a branch commit has to land: the branch's own paths, the base as of its start, the branch's tree now. */
export interface BranchChanges {
  own: readonly { path: string; removed: boolean }[]
  base: ReadonlyMap<string, StoredEntry>
  branch: Tree
  /** The workspace it lands on, as this instance sees it now (after its writes settled). */
  target: Tree
  merge: boolean
  limits?: DiffLimits
}

/**
 * The landings of a branch commit, and the conflicts known before landing. Each path the branch
 * changed must still hold in the workspace what it held at the branch's start; with `merge`, a
 * file changed on both sides is instead merged three ways (merge-files.ts) and expected to still
 * hold what was merged against, so a write that lands meanwhile makes it conflict, never lost.
 * A file deleted (or moved away) on one side and changed on the other conflicts.
 */
export async function branchLandings(c: BranchChanges): Promise<{ landings: Landing[]; conflicts: VfsConflict[] }> {
  const landings: Landing[] = []
  const conflicts: VfsConflict[] = []
  const both: Array<BothChanged & { was: number; version: number; node: Node }> = []
  for (const { path, removed } of c.own) {
    const was = c.base.get(path)
    const node = removed ? undefined : c.branch.get(path)
    if (!removed && !node) continue
    if (was?.kind === 'dir' && node?.kind === 'dir') continue
    const expected = was ? { kind: was.kind, version: was.version } : null
    const now = c.target.get(path)
    const changedSince = was?.kind === 'file' && (now === undefined || (now.kind === 'file' && !now.pending && now.version !== was.version))
    if (c.merge && changedSince && (node === undefined || node.kind === 'file')) {
      if (now && node) {
        both.push({ path, base: was.data, ours: now.data, theirs: node.data, was: was.version, version: now.version, node })
        continue
      }
      if (now || node) {
        conflicts.push(deleteConflict(path, was.version, now?.version ?? 0, now === undefined))
        continue
      }
    }
    landings.push({ path, expected, node: node ? { ...node, version: 0, pending: true } : null })
  }
  const merged = await mergeFiles(both, c.limits)
  merged.forEach((m, i) => {
    const { path, version, node } = both[i]
    if (!m.ok) conflicts.push(mergeConflict(path, both[i].was, version, m.conflict))
    else landings.push({ path, expected: { kind: 'file', version }, node: { ...mergedNode(node, m.data), version: 0, pending: true } })
  })
  return { landings, conflicts: withinHunkBytes(conflicts) }
}

/** Bytes of hunk text all conflicts of one commit carry together (a proposal stores its conflicts). */
export const MAX_CONFLICT_HUNK_BYTES = 256 * 1024

/** Conflicts past MAX_CONFLICT_HUNK_BYTES of hunks keep their reason but not their hunks. */
function withinHunkBytes(conflicts: VfsConflict[]): VfsConflict[] {
  let bytes = 0
  return conflicts.map(c => {
    const hunks = c.merge?.hunks
    if (!c.merge || !hunks) return c
    bytes += hunks.reduce((n, h) => n + h.base.text.length + h.ours.text.length + h.theirs.text.length, 0)
    if (bytes <= MAX_CONFLICT_HUNK_BYTES) return c
    const message = `${c.merge.message} (hunks left out: one commit's conflicts carry at most 256 KiB of them)`
    return { ...c, merge: { reason: c.merge.reason, message } }
  })
}

/** The branch's node with merged content (no cached text or hash of the branch's content). */
function mergedNode(node: Node, data: Uint8Array): Node {
  return { kind: 'file', data, version: node.version, pending: node.pending, mtime: Date.now(), ctime: node.ctime }
}

function mergeConflict(path: string, expected: number, found: number, merge: MergeConflict): VfsConflict {
  return { path, expected, found, message: `changed on both sides and not merged: ${merge.message}`, merge }
}

function deleteConflict(path: string, expected: number, found: number, deletedHere: boolean): VfsConflict {
  const message = deletedHere
    ? 'the workspace deleted or moved this file since; the branch changed it'
    : 'the branch deleted or moved this file; the workspace changed it since'
  return { path, expected, found, message, merge: { reason: 'delete', message } }
}
