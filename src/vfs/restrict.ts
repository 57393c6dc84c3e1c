import { VfsError } from '../contract/errors.js'
import { isWithin, normalizePath } from '../contract/paths.js'
import { VfsLayer, type Access } from './layer.js'
import { RunView, type RunRoot, type RunVfs } from './run-view.js'
import type { Vfs } from './types.js'

export interface RestrictOptions {
  /** Nothing can change (`true`), or nothing at or below these directories can. Default: nothing is read-only. */
  readOnly?: true | readonly string[]
  /**
   * Only these top-level directories exist, each mapped onto itself (`/context` is `/context`
   * below): the view is then a run view of them (with `roots`, `resolve` and `seed`, which
   * writes into read-only roots too, as a runner does; `runId` is that of a run view below, or
   * empty). Default: the roots of a run view below, or the whole workspace.
   */
  roots?: readonly string[]
  /** Called for every operation after the read-only rule; throws (a `VfsError`) to refuse it. */
  check?: (access: Access, path: string) => void
}

/**
 * A view of `vfs` with less allowed: changes to read-only paths fail with EACCES, and `check`
 * can refuse anything else. It is one layer (layer.ts) whatever it restricts, and it keeps what
 * the workspace below offers: over a run view it is still a run view (its `roots` then say which
 * roots became read-only).
 */
export function restrict<V extends Vfs>(vfs: V, options: RestrictOptions & { roots?: undefined }): V
export function restrict(vfs: Vfs, options: RestrictOptions & { roots: readonly string[] }): RunVfs
export function restrict(vfs: Vfs, options: RestrictOptions): Vfs {
  const readOnly = options.readOnly === true ? true : (options.readOnly ?? []).map(p => normalizePath(p))
  // The read-only directory that holds `path` ('/' when everything is), or undefined.
  const frozen = (path: string) => (readOnly === true ? '/' : readOnly.find(dir => isWithin(path, dir)))
  if (options.roots) {
    // The roots themselves carry the read-only rule, so that `seed` can still fill them.
    const roots: Record<string, Required<RunRoot>> = {}
    for (const name of options.roots) roots[name] = { writable: frozen('/' + name) === undefined, target: '/' + name }
    const base = (vfs as Partial<RunVfs>).runId
    const view = new RunView(vfs, base ?? '', Object.freeze(roots))
    return options.check ? new Restricted(view, () => undefined, options.check) : view
  }
  return new Restricted(vfs, frozen, options.check)
}

class Restricted extends VfsLayer {
  constructor(base: Vfs, frozen: (path: string) => string | undefined, check: ((access: Access, path: string) => void) | undefined) {
    super(base, {
      check(access, path) {
        if (access !== 'read') {
          const dir = frozen(normalizePath(path))
          if (dir === '/') throw new VfsError('EACCES', path, 'this view is read-only')
          if (dir !== undefined) throw new VfsError('EACCES', path, `${dir} is read-only in this view`)
        }
        check?.(access, path)
      },
    })
    // The constructor of the layer passed a run view's roots through before `frozen` was known here.
    const roots = (base as Partial<RunVfs>).roots
    if (roots) {
      const shown: Record<string, Required<RunRoot>> = {}
      for (const [n, r] of Object.entries(roots)) shown[n] = { ...r, writable: r.writable && frozen('/' + n) === undefined }
      Object.defineProperty(this, 'roots', { value: Object.freeze(shown), enumerable: true, configurable: true, writable: true })
    }
  }
}
