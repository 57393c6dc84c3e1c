import { VfsError } from '../contract/errors.js'
import { ancestorsOf, parentOf } from '../contract/paths.js'
import { dirNode, type Node, type Tree } from './tree.js'
import type { VfsQuota } from './types.js'

/** The check of a write's `expectedVersion` against the node this instance holds. */
export function checkVersion(path: string, node: Node | undefined, expected: number): void {
  if (!Number.isInteger(expected) || expected < 0) throw new VfsError('EINVAL', path, 'expectedVersion must be a non-negative integer')
  const current = node?.kind === 'file' ? node.version : 0
  if (node?.pending) throw new VfsError('ECONFLICT', path, 'another write to this file is still in flight; await it, then stat() and retry')
  if (current !== expected) throw new VfsError('ECONFLICT', path, `expected version ${expected}, the file is at version ${current}`)
}

/** EQUOTA when adding `addBytes` and `addFiles` to the tree would exceed the scope's quota. */
export function checkQuota(tree: Tree, quota: VfsQuota, path: string, addBytes: number, addFiles: number): void {
  const { maxBytes, maxFiles } = quota
  if (maxBytes !== undefined && addBytes > 0 && tree.bytes + addBytes > maxBytes) {
    throw new VfsError('EQUOTA', path, `the write needs ${tree.bytes + addBytes} bytes, the scope allows ${maxBytes}`)
  }
  if (maxFiles !== undefined && addFiles > 0 && tree.files + addFiles > maxFiles) {
    throw new VfsError('EQUOTA', path, `the write needs ${tree.files + addFiles} files, the scope allows ${maxFiles}`)
  }
}

/**
 * The nearest existing ancestor of `p` below the root, with its node: a new entry relies on it
 * still being the directory this instance saw (the store keeps every entry's parent, so that
 * one check covers all ancestors).
 */
export function parentRead(tree: Tree, p: string): Array<[string, Node | null]> {
  for (let a = parentOf(p); a !== '/'; a = parentOf(a)) {
    const node = tree.get(a)
    if (node) return [[a, node]]
  }
  return []
}

/** Directory nodes to create for the missing ancestors of `p`; ENOTDIR if one is a file. */
export function missingParents(tree: Tree, p: string, path: string): Array<[string, Node]> {
  const out: Array<[string, Node]> = []
  const now = Date.now()
  for (const a of ancestorsOf(p)) {
    const node = tree.get(a)
    if (node?.kind === 'file') throw new VfsError('ENOTDIR', path, `${a} is a file, not a directory`)
    if (!node) out.push([a, dirNode(now, 0, true)])
  }
  return out
}
