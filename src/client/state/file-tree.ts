import type { ObservedEvent } from '../events.js'

/** One file of a session's workspace as the client knows it. */
export interface FileNode {
  path: string
  size: number
  /** The workspace version of the file's last change. */
  version: number
  mimeType: string
}

/** A workspace's files by path, kept from `files-changed` events. Immutable: a change makes a new map. */
export type FileTree = ReadonlyMap<string, FileNode>

/** A tree from a listing (`api.listFiles`), for a client that starts observing after the beginning of the log. */
export function fileTree(entries: Iterable<FileNode> = []): FileTree {
  return new Map([...entries].map(e => [e.path, { path: e.path, size: e.size, version: e.version, mimeType: e.mimeType }]))
}

/**
 * The tree after `event`: a `files-changed` adds, changes and removes files; every other event leaves
 * the tree as it is (the same object, so a UI can skip a render). A change older than what the tree
 * holds for its path (a listing taken after it) is ignored, so a listing and a replay can be mixed.
 */
export function applyFileEvent(tree: FileTree, event: ObservedEvent): FileTree {
  if (event.type !== 'files-changed') return tree
  let next: Map<string, FileNode> | undefined
  for (const change of event.changes) {
    const known = (next ?? tree).get(change.path)
    if (known && known.version >= change.version) continue
    next ??= new Map(tree)
    if (change.op === 'deleted') next.delete(change.path)
    else next.set(change.path, { path: change.path, size: change.size, version: change.version, mimeType: change.mimeType })
  }
  return next ?? tree
}

/** The entries directly inside `dir`: its files, and its sub-folders (by name, ending in `/`), sorted. */
export function folderEntries(tree: FileTree, dir: string): string[] {
  const prefix = dir.endsWith('/') ? dir : `${dir}/`
  const names = new Set<string>()
  for (const path of tree.keys()) {
    if (!path.startsWith(prefix)) continue
    const rest = path.slice(prefix.length)
    const slash = rest.indexOf('/')
    names.add(slash < 0 ? rest : rest.slice(0, slash + 1))
  }
  return [...names].sort()
}
