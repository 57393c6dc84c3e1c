import { joinPath } from '../contract/paths.js'
import type { Tree } from './tree.js'

/**
 * Every path strictly below `dir`, depth-first, parents before children, names sorted within each
 * directory; at most `depth` names below `/` (Infinity: no limit). Lazy and without recursion, so
 * a search can stop part-way through a huge or very deep tree.
 */
export function* walkTree(tree: Tree, dir: string, depth = Infinity): Generator<string> {
  const levelOf = (p: string) => (p === '/' ? 0 : p.split('/').length - 1)
  if (levelOf(dir) >= depth) return
  const stack: Array<{ dir: string; names: string[]; next: number; level: number }> = [
    { dir, names: sortedChildren(tree, dir), next: 0, level: levelOf(dir) + 1 },
  ]
  while (stack.length > 0) {
    const top = stack[stack.length - 1]
    if (top.next >= top.names.length) {
      stack.pop()
      continue
    }
    const path = joinPath(top.dir, top.names[top.next++])
    yield path
    if (top.level < depth && tree.get(path)?.kind === 'dir' && tree.hasChildren(path)) {
      stack.push({ dir: path, names: sortedChildren(tree, path), next: 0, level: top.level + 1 })
    }
  }
}

function sortedChildren(tree: Tree, dir: string): string[] {
  return [...tree.childNames(dir)].sort()
}
