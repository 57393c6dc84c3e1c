import {
  DirectoryNotEmptyError,
  DirectoryNotFoundError,
  FileExistsError,
  FileNotFoundError,
  FilesystemError,
  IsDirectoryError,
  NotDirectoryError,
  PermissionError,
} from '@mastra/core/workspace'
import { isVfsError } from 'agent-vfs'

/** Whether a workspace error is about the source of a copy or move (as written, or normalised). */
export function blames(error: unknown, src: string, from: string): boolean {
  return isVfsError(error) && (error.path === src || error.path === from)
}

/** Which kind of thing an operation expects at its path, to pick FileNotFound vs DirectoryNotFound. */
export type Expect = 'file' | 'directory'

/**
 * Translates a workspace error into the `@mastra/core/workspace` error class Mastra's tools test
 * with `instanceof`. `path` is the path as the caller wrote it.
 */
export function toMastraError(error: unknown, path: string, operation: string, expect: Expect = 'file'): unknown {
  if (!isVfsError(error)) return error
  let out: Error
  switch (error.code) {
    case 'ENOENT':
      out = expect === 'directory' ? new DirectoryNotFoundError(path) : new FileNotFoundError(path)
      break
    case 'EEXIST':
      out = new FileExistsError(path)
      break
    case 'EISDIR':
      out = new IsDirectoryError(path)
      break
    case 'ENOTDIR':
      out = new NotDirectoryError(path)
      break
    case 'ENOTEMPTY':
      out = new DirectoryNotEmptyError(path)
      break
    case 'EACCES':
      out = new PermissionError(path, operation)
      out.message += ` (${error.message})`
      break
    default:
      // EINVAL, ECONFLICT, EQUOTA, ECLOSED, ESTORE: no Mastra class of their own; keep our code and hint.
      out = new FilesystemError(error.message, error.code, path)
  }
  ;(out as { cause?: unknown }).cause = error
  return out
}
