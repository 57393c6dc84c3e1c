import { VfsError } from '../contract/errors.js'
import { isWithin, MAX_PATH_LENGTH } from '../contract/paths.js'
import type { Node, Tree } from './tree.js'
import type { Dependencies } from './commit-queue.js'
import { parentRead } from './write-checks.js'

// What a move (rename) or copy of the store workspace may do, and the entries it creates.

export interface Transfer {
  /** Normalised source and target. */
  source: string
  target: string
  /** The caller's paths, for errors. */
  from: string
  to: string
  verb: 'move' | 'copy'
}

/**
 * Refuses a transfer the tree does not allow (nothing at the source, a directory into itself, a
 * file onto a directory, a directory onto a non-empty one, a path that grows too long); returns
 * the entries that move (the source, then everything below it) and what the target holds now.
 */
export function checkTransfer(tree: Tree, transfer: Transfer): { entries: Array<[string, Node]>; existing: Node | undefined } {
  const { source, target, from, to, verb } = transfer
  const node = tree.get(source)
  if (!node) throw new VfsError('ENOENT', from, `nothing to ${verb}`)
  if (source === '/') throw new VfsError('EINVAL', from, `the root directory cannot be the source of a ${verb}`)
  if (isWithin(target, source) && target !== source) throw new VfsError('EINVAL', to, `cannot ${verb} a directory into itself`)
  const existing = tree.get(target)
  if (existing) {
    if (node.kind === 'file' && existing.kind === 'dir') throw new VfsError('EISDIR', to, 'the target is a directory')
    if (node.kind === 'dir' && existing.kind === 'file') throw new VfsError('ENOTDIR', to, 'the target is a file')
    if (node.kind === 'dir' && (verb === 'copy' || tree.hasChildren(target))) {
      throw new VfsError(verb === 'copy' ? 'EEXIST' : 'ENOTEMPTY', to, 'the target directory already exists')
    }
  }
  const entries: Array<[string, Node]> = [[source, node]]
  if (node.kind === 'dir') for (const d of tree.descendants(source)) entries.push([d, tree.get(d)!])
  // Names do not change, only the prefix: the longest path created is the longest source path, moved.
  let longest = 0
  for (const [p] of entries) longest = Math.max(longest, p.length)
  if (longest - source.length + target.length > MAX_PATH_LENGTH) {
    throw new VfsError(
      'EINVAL',
      to,
      `the ${verb} would create a path of ${longest - source.length + target.length} characters; paths are limited to ${MAX_PATH_LENGTH}`,
    )
  }
  return { entries, existing }
}

/** `node` as it lands at `newPath`: pending, keeping the version of what it replaces there. */
export function movedNode(tree: Tree, node: Node, newPath: string, now: number): Node {
  const existing = tree.get(newPath)
  return {
    kind: node.kind,
    data: node.data,
    version: existing?.version ?? 0,
    pending: true,
    mtime: node.kind === 'dir' ? now : node.mtime,
    ctime: node.ctime,
    text: node.text,
  }
}

/** The changes with only the last one of each path, in first-seen order. */
export function dedupeLast(changes: Array<[string, Node | null]>): Array<[string, Node | null]> {
  const last = new Map<string, Node | null>()
  for (const [p, n] of changes) last.set(p, n)
  return [...last]
}

/**
 * What a transfer relies on: a move, on the whole source subtree (every entry of it moves) and on
 * the target's subtree when it replaces an empty directory; a copy, on every entry it reads. Both
 * rely on the target's parent.
 */
export function transferDependencies(
  tree: Tree,
  source: string,
  target: string,
  entries: Array<[string, Node]>,
  verb: 'move' | 'copy',
): Dependencies {
  const subtrees: string[] = []
  if (entries[0][1].kind === 'dir') subtrees.push(source)
  if (tree.get(target)?.kind === 'dir' && verb === 'move') subtrees.push(target)
  const reads = parentRead(tree, target)
  if (verb === 'copy') for (const [p, node] of entries) reads.push([p, node])
  return { reads, subtrees }
}
