import { DirectoryNotFoundError, IsDirectoryError, NotDirectoryError, StaleFileError, type FileContent } from '@mastra/core/workspace'
import { isVfsError, parentOf, type Vfs } from 'agent-vfs'
import { statOrUndefined } from './filesystem-listing.js'

/* VfsFilesystem's checked writes, as functions of the workspace: `path` as the caller wrote it, `p` normalised. */

/**
 * Optimistic concurrency. The file must still have the modification time the caller saw (Mastra
 * keeps it as a Date, so millisecond resolution: a change landing in the very millisecond of the
 * caller's read goes unnoticed); the
 * write is then made conditional on the version that stat showed, so a write landing between
 * the check and ours is caught too. A write of the file still in flight (no version yet) is
 * waited for once, then checked again.
 */
export async function writeIfUnchanged(vfs: Vfs, path: string, p: string, content: FileContent, expected: Date): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    const current = await statOrUndefined(vfs, p)
    // A missing file cannot conflict (as in LocalFilesystem): it is written as new, atomically.
    if (current?.type === 'directory') throw new IsDirectoryError(path)
    if (current && current.mtime !== expected.getTime()) throw new StaleFileError(path, expected, new Date(current.mtime))
    try {
      return await vfs.writeFile(p, content, { expectedVersion: current?.version ?? 0 })
    } catch (error) {
      if (!isVfsError(error, 'ECONFLICT')) throw error
      if (attempt > 0) {
        const now = await statOrUndefined(vfs, p)
        throw new StaleFileError(path, expected, new Date(now?.mtime ?? Date.now()))
      }
      await vfs.flush().catch(() => undefined)
    }
  }
}

/** Refuses a path whose parent is missing or not a directory (writes and mkdir with `recursive: false`). */
export async function assertParentDirectory(vfs: Vfs, path: string, p: string): Promise<void> {
  const parent = parentOf(p)
  const s = await statOrUndefined(vfs, parent)
  if (!s) throw new DirectoryNotFoundError(parentOf(path.startsWith('/') ? path : '/' + path))
  if (s.type !== 'directory') throw new NotDirectoryError(parent)
}
