import type { ChangeRecord, HistoryBlob } from '../contract/history.js'
import type { ScopeSnapshot, StoredEntry, StoreOp, VfsStore } from '../contract/store.js'
import { VfsError } from '../contract/errors.js'
import { BRANCH_META, type BranchMeta } from './branch.js'
import type { BranchStore } from './branch-store.js'
import type { VersionedVfs, VfsBranch } from './history-types.js'
import { sha256Hex } from './hash.js'

/**
 * Detached branches: a branch that holds everything it shows in its own scope, so it outlives its
 * base (a session fork whose original is deleted; a fork copied from another Durable Object).
 *
 * Detaching copies what the branch shows of its base as of `baseVersion` into its scope in one
 * commit, with the meta entry saying `detached`. Its record replaces each copied entry by itself
 * (same content, same version before), so rebuilding the branch at any version it kept still gives
 * every file its version of then; the before-images its own changes need, kept until then in the
 * base's history, are copied too. What the branch's history held of the base (up to `baseVersion`)
 * goes with the base.
 */
export async function detachScope(
  raw: VfsStore,
  namespace: string,
  scope: string,
  store: BranchStore,
  base: Map<string, StoredEntry>,
  meta: BranchMeta,
): Promise<void> {
  const own = new Set(store.ownPaths().map(o => o.path))
  const copies = [...base.values()].filter(e => !own.has(e.path))
  const changes: ChangeRecord[] = []
  const blobs = new Map<string, Uint8Array>()
  const ops: StoreOp[] = []
  for (const e of copies) {
    const hash = e.kind === 'file' ? await sha256Hex(e.data) : undefined
    if (hash) blobs.set(hash, e.data)
    ops.push({ op: 'put', path: e.path, kind: e.kind, data: e.data, mtime: e.mtime, ctime: e.ctime, expectedVersion: 0 })
    const size = e.kind === 'file' ? e.data.byteLength : 0
    changes.push({
      path: e.path,
      op: 'put',
      kind: e.kind,
      versionBefore: e.version,
      ...(hash ? { hashBefore: hash, hashAfter: hash } : {}),
      sizeBefore: size,
      size,
    })
  }
  // The before-images of the branch's own changes that only the base's history held.
  const history = raw.history
  if (history) {
    const needed = [...new Set((await history.changes(namespace, scope)).flatMap(c => (c.hashBefore ? [c.hashBefore] : [])))]
    const held = await history.blobs(namespace, scope, needed)
    const missing = needed.filter(h => !held.has(h) && !blobs.has(h))
    const fromBase =
      missing.length > 0 && store.base.store.history ? await store.base.store.history.blobs(namespace, meta.baseScope, missing) : new Map()
    for (const [h, d] of fromBase) blobs.set(h, d)
  }
  const now = Date.now()
  const detached: BranchMeta = { ...meta, detached: true }
  const metaVersion = (await raw.load(namespace, scope)).entries.find(e => e.path === BRANCH_META)?.version ?? 0
  ops.push({
    op: 'put',
    path: BRANCH_META,
    kind: 'file',
    data: new TextEncoder().encode(JSON.stringify(detached)),
    mtime: now,
    ctime: now,
    expectedVersion: metaVersion,
  })
  const record = { time: now, changes, blobs: [...blobs].map(([hash, data]): HistoryBlob => ({ hash, data })) }
  await raw.commit(namespace, scope, ops, record)
}

/** Blind puts of `entries` into a detached branch's scope, as they are (times included), without history. */
export async function importInto(raw: VfsStore, namespace: string, scope: string, entries: readonly StoredEntry[]): Promise<void> {
  for (const e of entries)
    if (!e.path.startsWith('/')) throw new VfsError('EINVAL', e.path, 'only workspace paths can be imported into a branch')
  if (entries.length === 0) return
  // Blind: a copy interrupted after this commit sends the same entries again, and they land as they are.
  await raw.commit(
    namespace,
    scope,
    entries.map(e => ({ op: 'put', path: e.path, kind: e.kind, data: e.data, mtime: e.mtime, ctime: e.ctime, expectedVersion: null })),
  )
}

interface Detachable {
  detach(): Promise<void>
  importEntries(entries: readonly StoredEntry[]): Promise<void>
}

function detachable(branch: VfsBranch): VfsBranch & Detachable {
  const b = branch as VfsBranch & Partial<Detachable>
  if (typeof b.detach !== 'function' || typeof b.importEntries !== 'function')
    throw new VfsError('EINVAL', undefined, 'only a branch made by a workspace of this package can be detached')
  return b as VfsBranch & Detachable
}

/** Makes `branch` stand on its own, so its base's scope may be deleted (see {@link detachScope}). Idempotent. */
export function detachBranch(branch: VfsBranch): Promise<void> {
  return detachable(branch).detach()
}

/**
 * A new detached branch of `base`, empty, whose versions continue after `version` (the version of
 * what is copied into it, from another store: fill it with {@link importBranchEntries}).
 */
export async function createDetachedBranch(base: VersionedVfs, name: string, version: number): Promise<VfsBranch> {
  return base.branch({ name, at: version, detached: true } as Parameters<VersionedVfs['branch']>[0])
}

/** Copies entries into a detached branch (one commit, blind puts: sending a batch again is harmless). */
export function importBranchEntries(branch: VfsBranch, entries: readonly StoredEntry[]): Promise<void> {
  return detachable(branch).importEntries(entries)
}

/** Every entry of a workspace of this package (or a branch of one) as it was at `version`. */
export function snapshotOf(vfs: VersionedVfs, version: number): Promise<ScopeSnapshot> {
  const v = vfs as VersionedVfs & { snapshot?: (version: number) => Promise<ScopeSnapshot> }
  if (typeof v.snapshot !== 'function') throw new VfsError('EINVAL', undefined, 'only a workspace of this package can give its snapshot')
  return v.snapshot(version)
}
