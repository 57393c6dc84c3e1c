/**
 * A synchronous text read for layers that live in the same process as the workspace (run_js's
 * bridge). Reads are served from memory, so waiting for a promise only adds a round trip through
 * the caller's event loop; this keyed method skips it. It is not part of the public `Vfs` API.
 * A view may answer `undefined` ("not now": a registry handle whose scope is not in memory); the
 * caller then reads with `readFile`.
 */
// A private symbol: every entry of the package shares the one core, so no global registry is needed.
export const readTextNow: unique symbol = Symbol('agent-vfs.readTextNow')

/** A workspace that can read text without a promise; throws the same VfsError readFile would. */
export interface ReadsTextNow {
  [readTextNow](path: string): string | undefined
}

/** The synchronous reader of `vfs`, if it has one. */
export function textReaderOf(vfs: object | undefined): ((path: string) => string | undefined) | undefined {
  const read = (vfs as Partial<ReadsTextNow> | undefined)?.[readTextNow]
  return typeof read === 'function' ? path => read.call(vfs, path) : undefined
}
