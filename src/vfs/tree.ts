import type { ScopeSnapshot } from '../contract/store.js'
import { decodeUtf8 } from './bytes.js'
import { baseName, joinPath, parentOf } from '../contract/paths.js'
import type { EntryKind } from '../contract/store.js'

/**
 * One entry in memory. Nodes are never mutated after they are placed in the tree, except to stamp
 * the version once their commit is durable; a write replaces the node. That makes snapshots (for
 * rollback) and in-flight batches cheap: they hold references.
 */
export interface Node {
  kind: EntryKind
  data: Uint8Array
  /** Version of the last durable write of this node's content; see VfsStat.version. */
  version: number
  /** True until the commit holding this node is durable. */
  pending: boolean
  mtime: number
  ctime: number
  /** Decoded text, filled on first text read and reused (nodes are immutable). */
  text?: string
  /** SHA-256 of `data`, filled when history first needs it (hash.ts). */
  hash?: string
}

const EMPTY = new Uint8Array(0)

export function dirNode(now: number, version = 0, pending = false): Node {
  return { kind: 'dir', data: EMPTY, version, pending, mtime: now, ctime: now }
}

/** Text of a file node, decoded once. */
export function nodeText(node: Node): string {
  if (node.text === undefined) node.text = decodeUtf8(node.data)
  return node.text
}

/** The in-memory tree: path → node, a child index for directory listings, and usage counters. */
export class Tree {
  /** The tree of a store snapshot: every entry durable (not pending), with the directories above them. */
  static fromSnapshot(snapshot: ScopeSnapshot): Tree {
    const tree = new Tree()
    for (const e of snapshot.entries) {
      tree.set(e.path, { kind: e.kind, data: e.data, version: e.version, pending: false, mtime: e.mtime, ctime: e.ctime })
    }
    for (const e of snapshot.entries) tree.addMissingAncestors(e.path)
    return tree
  }

  private readonly nodes = new Map<string, Node>()
  private readonly children = new Map<string, Set<string>>()
  bytes = 0
  files = 0

  constructor() {
    this.nodes.set('/', dirNode(0))
  }

  get(path: string): Node | undefined {
    return this.nodes.get(path)
  }

  /** Places `node` at `path`, or removes the path when `node` is null. Keeps index and counters. */
  set(path: string, node: Node | null): void {
    const old = this.nodes.get(path)
    if (old?.kind === 'file') {
      this.bytes -= old.data.length
      this.files--
    }
    if (node === null) {
      if (!old) return
      this.nodes.delete(path)
      const siblings = this.children.get(parentOf(path))
      siblings?.delete(baseName(path))
      if (siblings?.size === 0) this.children.delete(parentOf(path))
      return
    }
    if (node.kind === 'file') {
      this.bytes += node.data.length
      this.files++
    }
    this.nodes.set(path, node)
    if (!old) {
      const parent = parentOf(path)
      let siblings = this.children.get(parent)
      if (!siblings) this.children.set(parent, (siblings = new Set()))
      siblings.add(baseName(path))
    }
  }

  /** Names directly below a directory path, unsorted. */
  childNames(dir: string): Iterable<string> {
    return this.children.get(dir) ?? []
  }

  hasChildren(dir: string): boolean {
    return (this.children.get(dir)?.size ?? 0) > 0
  }

  /**
   * Every path strictly below `dir`, parents before children. Walks with an explicit stack, not
   * recursion: a tree 2,000 directories deep must not overflow the call stack.
   */
  descendants(dir: string): string[] {
    const out: string[] = []
    const stack = [dir]
    while (stack.length > 0) {
      const d = stack.pop()!
      for (const name of this.childNames(d)) {
        const p = joinPath(d, name)
        out.push(p)
        if (this.nodes.get(p)?.kind === 'dir') stack.push(p)
      }
    }
    return out
  }

  /** Every file strictly below `dir`. */
  filesUnder(dir: string): string[] {
    return this.descendants(dir).filter(p => this.nodes.get(p)!.kind === 'file')
  }

  /** Adds directory nodes for ancestors that have no entry of their own (stores need not keep them). */
  addMissingAncestors(path: string): void {
    // Upwards, stopping at the first ancestor that exists: its own ancestors exist already, so a
    // deep tree loads in time linear in its size, not in depth × size.
    for (let a = parentOf(path); a !== '/' && !this.nodes.has(a); a = parentOf(a)) this.set(a, dirNode(0))
  }
}
