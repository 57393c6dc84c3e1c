import { VfsError } from '../contract/errors.js'
import type { StoredChange, StoreHistory } from '../contract/history.js'
import type { ScopeSnapshot, StoredEntry, VfsStore } from '../contract/store.js'

/**
 * Rebuilding the past from the present: the state at version V is the current state with every
 * change after V undone, newest first, each path put back to its before-image (content-addressed
 * blobs). History keeps only before-images, so this needs the scope's current entries plus the
 * changes after V; what `gc` dropped (before the horizon) cannot be rebuilt and is refused.
 */

/** The history of a store, or EINVAL saying the store keeps none. */
export function historyOf(store: VfsStore, what: string): StoreHistory {
  if (!store.history) throw new VfsError('EINVAL', undefined, `the ${store.kind} store keeps no history, so it cannot ${what}`)
  return store.history
}

/** The oldest version that can be rebuilt: just before the oldest change kept, or `current` when none is. */
export async function horizonOf(history: StoreHistory, namespace: string, scope: string, current: number): Promise<number> {
  const oldest = await history.oldest(namespace, scope)
  return oldest === undefined ? current : Math.min(current, oldest - 1)
}

/** EINVAL unless `version` can be rebuilt. */
export async function checkRebuildable(history: StoreHistory, namespace: string, scope: string, version: number, current: number) {
  if (!Number.isInteger(version) || version < 0)
    throw new VfsError('EINVAL', undefined, `version must be a non-negative integer, not ${version}`)
  if (version > current) throw new VfsError('EINVAL', undefined, `version ${version} is in the future (the workspace is at ${current})`)
  const horizon = await horizonOf(history, namespace, scope, current)
  if (version < horizon)
    throw new VfsError(
      'EINVAL',
      undefined,
      `version ${version} is outside the history kept; the oldest version that can be rebuilt is ${horizon}`,
      {
        hint: 'gc dropped it under the retention policy; choose a later version',
      },
    )
}

/**
 * The scope as it was at each of `versions` (any order), from one load and one read of history:
 * the current snapshot, then changes undone newest first, a copy taken at each version on the way.
 */
export async function snapshotsAt(
  store: VfsStore,
  namespace: string,
  scope: string,
  versions: readonly number[],
): Promise<ScopeSnapshot[]> {
  const now = await store.load(namespace, scope)
  if (versions.every(v => v === now.version)) return versions.map(() => now)
  const history = historyOf(store, 'rebuild a past version')
  const lowest = Math.min(...versions)
  for (const v of versions) await checkRebuildable(history, namespace, scope, v, now.version)
  // Only commits the snapshot includes: one that landed after the load is not in `now`.
  const changes = await history.changes(namespace, scope, { after: lowest, upTo: now.version })
  const blobs = await blobsFor(history, namespace, scope, changes)
  const entries = new Map(now.entries.map(e => [e.path, e]))
  const wanted = [...new Set(versions)].sort((a, b) => b - a)
  const out = new Map<number, ScopeSnapshot>()
  let i = changes.length - 1
  for (const v of wanted) {
    for (; i >= 0 && changes[i].version > v; i--) undo(entries, changes[i], blobs)
    out.set(v, { version: v, entries: [...entries.values()] })
  }
  return versions.map(v => out.get(v)!)
}

/** The scope as it was at `version`. */
export async function snapshotAt(store: VfsStore, namespace: string, scope: string, version: number): Promise<ScopeSnapshot> {
  return (await snapshotsAt(store, namespace, scope, [version]))[0]
}

/** The before-images `changes` need, ESTORE when one is missing (the store lost it). */
export async function blobsFor(history: StoreHistory, namespace: string, scope: string, changes: readonly StoredChange[]) {
  const hashes = [...new Set(changes.flatMap(c => (c.hashBefore ? [c.hashBefore] : [])))]
  const blobs = hashes.length > 0 ? await history.blobs(namespace, scope, hashes) : new Map<string, Uint8Array>()
  for (const h of hashes)
    if (!blobs.has(h))
      throw new VfsError('ESTORE', undefined, `the before-image ${h.slice(0, 12)}… is missing from history; the store is damaged`)
  return blobs
}

/** Puts the path of `change` back to what it held before it. */
export function undo(entries: Map<string, StoredEntry>, change: StoredChange, blobs: Map<string, Uint8Array>): void {
  if (change.versionBefore === 0) return void entries.delete(change.path)
  const data = change.hashBefore ? blobs.get(change.hashBefore)! : new Uint8Array(0)
  const kind = change.hashBefore ? 'file' : change.op === 'delete' ? change.kind : 'dir'
  // History keeps no times of the before-state: the undone change's time is the closest bound known.
  entries.set(change.path, { path: change.path, kind, data, version: change.versionBefore, mtime: change.time, ctime: change.time })
}
