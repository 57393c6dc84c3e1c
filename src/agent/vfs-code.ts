import type { VfsErrorCode } from '../contract/errors.js'

/**
 * The code of a workspace error, read structurally rather than with `instanceof`: the package ships
 * several bundles (main, mastra, run-js/workerd), each with its own copy of `VfsError`, so an error
 * thrown by a workspace from one entry must still be recognised in another.
 */
export function vfsErrorCode(error: unknown): VfsErrorCode | undefined {
  if (typeof error !== 'object' || error === null) return undefined
  const e = error as { name?: unknown; code?: unknown }
  return e.name === 'VfsError' && typeof e.code === 'string' ? (e.code as VfsErrorCode) : undefined
}

/** True when `error` is a workspace error with this code. */
export function isVfsCode(error: unknown, code: VfsErrorCode): boolean {
  return vfsErrorCode(error) === code
}
