import { VfsError } from '../contract/errors.js'
import type { VersionedVfs } from './history-types.js'
import type { OpenVfsOptions } from './types.js'
import { VersionedStoreVfs } from './versioned.js'

/**
 * Opens the workspace `(namespace, scope)` of a store: loads it into memory and returns a {@link Vfs}.
 * Two instances may open the same scope (two tabs, two serverless invocations); a commit based on
 * state the other changed fails with ECONFLICT instead of overwriting it.
 */
export async function openVfs(options: OpenVfsOptions): Promise<VersionedVfs> {
  const { store, namespace, scope, quota, autoRefresh = true } = options ?? ({} as OpenVfsOptions)
  if (!store || typeof store.load !== 'function' || typeof store.commit !== 'function') {
    throw new VfsError('EINVAL', undefined, 'openVfs needs a store, e.g. memoryStore() or indexedDbStore()')
  }
  checkKey('namespace', namespace)
  checkKey('scope', scope)
  for (const [key, value] of Object.entries(quota ?? {})) {
    if (value !== undefined && (!Number.isFinite(value) || value < 0))
      throw new VfsError('EINVAL', undefined, `quota.${key} must be a non-negative number`)
  }
  const vfs = new VersionedStoreVfs(store, namespace, scope, quota)
  await vfs.hydrate(autoRefresh)
  return vfs
}

function checkKey(what: string, value: unknown): asserts value is string {
  if (typeof value !== 'string' || value === '' || value.length > 512) {
    throw new VfsError('EINVAL', undefined, `${what} must be a non-empty string of at most 512 characters`)
  }
}
