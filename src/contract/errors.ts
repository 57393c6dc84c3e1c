/** Error codes a workspace operation can fail with. They mirror POSIX where POSIX has a name for it. */
export type VfsErrorCode =
  'ENOENT' | 'EEXIST' | 'EISDIR' | 'ENOTDIR' | 'ENOTEMPTY' | 'EACCES' | 'EINVAL' | 'ECONFLICT' | 'EQUOTA' | 'ECLOSED' | 'ESTORE'

const hints: Record<VfsErrorCode, string> = {
  ENOENT: 'check the path with readdir() or exists() first',
  EEXIST: 'choose another name or remove the existing entry first',
  EISDIR: 'the path is a directory; use readdir() or rmdir()',
  ENOTDIR: 'a parent of the path is a file, not a directory',
  ENOTEMPTY: 'pass { recursive: true } to remove the directory with its contents',
  EACCES: 'use a path under one of the allowed roots; read-only roots cannot change',
  EINVAL: 'fix the argument as the message says (a path is absolute POSIX, such as /work/notes.md)',
  ECONFLICT: 'another writer changed this scope; call refresh() and retry',
  EQUOTA: 'delete files or raise the scope quota',
  ECLOSED: 'open the workspace again with openVfs()',
  ESTORE: 'the store failed; the write was rolled back and can be retried',
}

/**
 * The one error class every workspace operation throws. `code` is machine-readable, `path` is the
 * path the caller passed (or the store key involved), and the message ends with what to do about it.
 */
export class VfsError extends Error {
  override readonly name = 'VfsError'
  readonly code: VfsErrorCode
  readonly path: string | undefined
  /** The message without code, path and hint, for re-raising the error about another path. */
  readonly detail: string

  /** `options.hint` replaces the code's usual advice when the caller knows better what to do. */
  constructor(code: VfsErrorCode, path: string | undefined, detail: string, options?: { cause?: unknown; hint?: string }) {
    super(
      `${code}: ${detail}${path === undefined ? '' : ` (${JSON.stringify(path)})`}: ${options?.hint ?? hints[code]}`,
      options?.cause === undefined ? undefined : { cause: options.cause },
    )
    this.code = code
    this.path = path
    this.detail = detail
  }
}

/** True when `error` is a {@link VfsError}, optionally with the given code. */
export function isVfsError(error: unknown, code?: VfsErrorCode): error is VfsError {
  return error instanceof VfsError && (code === undefined || error.code === code)
}
