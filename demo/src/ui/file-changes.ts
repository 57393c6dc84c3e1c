import type { FileEntry, SessionEvent } from '../api/types.js'

/**
 * The file list after the `files-changed` events among `events`: what keeps the file tree live
 * without listing the workspace again. A change applies only if it is at least as new as what the
 * list holds (its version), so a replayed event, or one older than the list it lands on, changes
 * nothing. Returns the same array when nothing changed.
 */
export function applyFileChanges(files: FileEntry[] | undefined, events: SessionEvent[]): FileEntry[] | undefined {
  if (!files) return files
  let byPath: Map<string, FileEntry> | undefined
  for (const e of events) {
    if (e.type !== 'files-changed') continue
    for (const c of e.changes) {
      byPath ??= new Map(files.map(f => [f.path, f]))
      const now = byPath.get(c.path)
      if (now && now.version > c.version) continue
      if (c.op === 'deleted') byPath.delete(c.path)
      else byPath.set(c.path, { path: c.path, size: c.size, mtime: e.at, version: c.version, mimeType: c.mimeType })
    }
  }
  return byPath ? [...byPath.values()] : files
}
