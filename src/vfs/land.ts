import { isVfsError } from '../contract/errors.js'
import { isWithin } from '../contract/paths.js'
import type { EntryKind } from '../contract/store.js'
import type { FileChange, LandResult, VfsConflict } from './history-types.js'
import type { VfsChange } from './types.js'
import { dirNode, type Node, type Tree } from './tree.js'
import { parentRead } from './write-checks.js'
import type { StoreVfs } from './vfs.js'

/** What a path must hold for a landing to go ahead: nothing, or an entry of this kind (a file at this version). */
export type Held = { kind: EntryKind; version: number } | null

/** One path a landing (a revert, a branch commit) writes: what it must still hold, and what it gets (null: removed). */
export interface Landing {
  path: string
  expected: Held
  node: Node | null
}

/**
 * Lands changes on a workspace as ONE group commit, or nothing: every path must hold what the
 * landing expects (in this instance's view, and, through the batch's expectations, in the store);
 * a directory it removes or replaces with a file must hold nothing it does not remove (else what
 * was added below it since would vanish with it). Otherwise nothing is written and the
 * conflicts are returned. Never last-writer-wins.
 */
export async function land(
  vfs: StoreVfs,
  landings: readonly Landing[],
  actor: string | undefined,
  known: readonly VfsConflict[] = [],
): Promise<LandResult> {
  await vfs.idle()
  const tree = vfs.treeNow()
  // Conflicts found before (a merge that failed): reported with the others, and nothing written.
  const conflicts: VfsConflict[] = [...known]
  const removed = new Set(landings.filter(l => l.node === null).map(l => l.path))
  for (const l of landings) {
    const node = tree.get(l.path)
    if (node?.pending) conflicts.push(conflict(l, node, 'another write to this path is still in flight'))
    else if (!holds(node, l.expected)) conflicts.push(conflict(l, node, 'it changed since'))
    else if (l.node !== null && fileAbove(tree, l.path, removed))
      conflicts.push(conflict(l, node, `${fileAbove(tree, l.path, removed)} is a file now, not a directory`))
    else if (replacesDirectory(l) && node?.kind === 'dir') {
      const extra = tree.descendants(l.path).find(p => !removed.has(p))
      if (extra) conflicts.push({ ...conflict(l, node, `${extra} was added below it since`), path: extra })
    }
  }
  if (conflicts.length > 0) return { ok: false, conflicts }
  // Removals deepest first, then puts parents first, so the tree's index stays whole.
  const order = [...landings].sort((a, b) => rank(a) - rank(b) || (a.node === null ? cmp(b.path, a.path) : cmp(a.path, b.path)))
  const changes: Array<[string, Node | null]> = []
  const planned = new Set(landings.filter(l => l.node).map(l => l.path))
  for (const l of order) {
    if (l.node === null && !tree.get(l.path)) continue
    if (l.node) for (const parent of missingAbove(vfs, l.path, planned)) changes.push([parent, dirNode(Date.now(), 0, true)])
    changes.push([l.path, l.node])
  }
  if (changes.length === 0) return { ok: true, version: vfs.version, changes: [] }
  const subtrees = order.filter(l => replacesDirectory(l) && l.expected?.kind === 'dir').map(l => l.path)
  const topmost = subtrees.filter(p => !subtrees.some(q => q !== p && isWithin(p, q)))
  // A put relies on its nearest existing ancestor still being the directory this instance sees.
  const reads = landings.flatMap(l => (l.node ? parentRead(tree, l.path) : [])).filter(([p]) => !planned.has(p))
  const seen: FileChange[] = []
  const stop = vfs.onChange((c: VfsChange) => {
    if (c.type === 'commit') seen.push(...c.changes.filter((fc: FileChange) => landings.some(l => l.path === fc.path)))
  })
  const before = vfs.writingAs
  vfs.writingAs = actor
  try {
    const version = await vfs.enqueueChanges(changes, { subtrees: topmost, reads })
    return { ok: true, version, changes: seen.filter(c => c.versionAfter === version) }
  } catch (error) {
    if (isVfsError(error) && error.code === 'ECONFLICT') {
      const path = error.path ?? landings[0].path
      return { ok: false, conflicts: [{ path, expected: 0, found: 0, message: error.detail }] }
    }
    throw error
  } finally {
    vfs.writingAs = before
    stop()
  }
}

/** The landing leaves no directory at its path (removes it, or puts a file there). */
const replacesDirectory = (l: Landing) => l.node === null || l.node.kind !== 'dir'

/** The nearest ancestor of `path` that is a file (and is not being removed), if any. */
function fileAbove(tree: Tree, path: string, removed: Set<string>): string | undefined {
  for (let p = path.slice(0, path.lastIndexOf('/')); p !== ''; p = p.slice(0, p.lastIndexOf('/'))) {
    const node = tree.get(p)
    if (node?.kind === 'file' && !removed.has(p)) return p
  }
  return undefined
}

function holds(node: Node | undefined, expected: Held): boolean {
  if (expected === null) return node === undefined
  if (!node || node.kind !== expected.kind) return false
  return node.kind === 'dir' || node.version === expected.version
}

function conflict(l: Landing, node: Node | undefined, why: string): VfsConflict {
  const found = node ? node.version : 0
  const expected = l.expected ? l.expected.version : 0
  const want = l.expected === null ? 'nothing' : l.expected.kind === 'dir' ? 'a directory' : `version ${expected}`
  const has = node === undefined ? 'nothing' : node.kind === 'dir' ? 'a directory' : `version ${found}`
  return { path: l.path, expected, found, message: `expected ${want}, the workspace has ${has}: ${why}` }
}

/** Ancestors of a put that neither exist nor are planned (added to `planned` as they are). */
function missingAbove(vfs: StoreVfs, path: string, planned: Set<string>): string[] {
  const out: string[] = []
  for (let p = path.slice(0, path.lastIndexOf('/')); p !== ''; p = p.slice(0, p.lastIndexOf('/'))) {
    if (planned.has(p) || vfs.treeNow().get(p)) break
    planned.add(p)
    out.unshift(p)
  }
  return out
}

const rank = (l: Landing) => (l.node === null ? 0 : 1)
const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0)
