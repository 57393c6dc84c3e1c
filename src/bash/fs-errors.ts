import { isVfsError } from 'agent-vfs'

/**
 * just-bash's commands read an error's meaning from its message (`ENOENT: no such file or
 * directory, open '/x'`, as Node's fs writes it) and print it the way bash does; this gives them
 * that shape. A workspace refusal (EACCES, EQUOTA) keeps the workspace's reason after the code.
 */
const POSIX: Record<string, string> = {
  ENOENT: 'no such file or directory',
  EEXIST: 'file already exists',
  EISDIR: 'illegal operation on a directory',
  ENOTDIR: 'not a directory',
  ENOTEMPTY: 'directory not empty',
  EACCES: 'permission denied',
  EINVAL: 'invalid argument',
  EPERM: 'operation not permitted',
  EQUOTA: 'disk quota exceeded',
}

export class FsError extends Error {
  constructor(
    readonly code: string,
    op: string,
    path: string,
    reason?: string,
  ) {
    super(`${code}: ${POSIX[code] ?? code.toLowerCase()}${reason ? ` (${reason})` : ''}, ${op} '${path}'`)
  }
}

/** The error a command sees for a workspace error during `op` on `path`. */
export function asFsError(error: unknown, op: string, path: string): unknown {
  if (!isVfsError(error)) return error
  const explained = error.code === 'EACCES' || error.code === 'EQUOTA' || error.code === 'ECONFLICT' || error.code === 'ESTORE'
  return new FsError(error.code, op, path, explained ? error.detail : undefined)
}

/** Runs a workspace call, rethrowing its errors in the shape commands read. */
export async function posix<T>(op: string, path: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn()
  } catch (error) {
    throw asFsError(error, op, path)
  }
}
