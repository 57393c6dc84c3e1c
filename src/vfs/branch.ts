import type { StoredEntry, VfsStore } from '../contract/store.js'
import { BranchStore } from './branch-store.js'
import type { StoreVfs } from './vfs.js'
import { decodeUtf8 } from './bytes.js'
import type { VersionedVfs } from './history-types.js'
import { snapshotAt } from './rebuild.js'

/** The raw-scope path of a branch's meta entry: no workspace path can be it (those start with `/`). */
export const BRANCH_META = '.branch'

export const BRANCH_NAME = /^[A-Za-z0-9._-]{1,64}$/

/** What a branch's meta entry records. */
export interface BranchMeta {
  name: string
  baseScope: string
  baseVersion: number
  /**
   * The branch holds everything it shows in its own scope (see branch-detach.ts): it reads nothing
   * of its base, whose scope may be gone; its versions still continue after `baseVersion`.
   */
  detached?: boolean
}

/** How to reach the stores under a versioned workspace: the raw store its scope (and its branches' scopes) live in, and the store it commits to. */
export interface BranchHost {
  vfs: VersionedVfs
  raw: VfsStore
  store: () => Promise<VfsStore>
  /** Opens the branch's own workspace on its store (a VersionedStoreVfs; passed in so branch files need not import it). */
  openWorkspace: (store: VfsStore, namespace: string, scope: string) => Promise<VersionedVfs & StoreVfs>
}

export function branchScopeOf(baseScope: string, name: string): string {
  return `${baseScope}#${name}`
}

export function metaOf(entries: readonly StoredEntry[]): BranchMeta | undefined {
  const entry = entries.find(e => e.path === BRANCH_META)
  if (!entry) return undefined
  try {
    return JSON.parse(decodeUtf8(entry.data)) as BranchMeta
  } catch {
    return undefined
  }
}

/** The store a branch's workspace runs on (branch-store.ts), over its base as of the branch's version. */
export async function branchStoreOf(host: BranchHost, scope: string, meta: BranchMeta): Promise<BranchStore> {
  const baseStore = await host.store()
  const namespace = host.vfs.namespace
  return new BranchStore(
    host.raw,
    {
      store: baseStore,
      scope: meta.baseScope,
      version: meta.baseVersion,
      detached: meta.detached === true,
      snapshot: async () =>
        meta.detached ? { version: meta.baseVersion, entries: [] } : snapshotAt(baseStore, namespace, meta.baseScope, meta.baseVersion),
    },
    scope,
  )
}
