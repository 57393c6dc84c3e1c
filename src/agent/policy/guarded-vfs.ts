import { restrict, type Vfs } from 'agent-vfs'

/** One file operation, as a guard sees it: what it does to which path (as the caller wrote it). */
export interface FileOperation {
  access: 'read' | 'write'
  path: string
}

/** Throws (a `VfsError`, usually EACCES) when an operation is not allowed; returns when it is. */
export type OperationCheck = (op: FileOperation) => void

/**
 * A workspace whose every operation is checked first: nothing happens unless the check passes for
 * every path the operation reads or writes (both ends of a rename or copy). Listing and searching
 * are reads of the directory or pattern they cover. It is a configuration of the workspace layer
 * (`restrict`), so a run view's `roots` and run_js's promise-free reads pass through.
 */
export function guardVfs<V extends Vfs>(vfs: V, check: OperationCheck): V {
  return restrict(vfs, { check: asAccessCheck(check) })
}

/** The layer's access (read, write, replace, remove) as a guard's: a read, or a change. */
export function asAccessCheck(check: OperationCheck): (access: string, path: string) => void {
  return (access, path) => check({ access: access === 'read' ? 'read' : 'write', path })
}
