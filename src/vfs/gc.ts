import { changeRowBytes, type StoredChange } from '../contract/history.js'
import type { GcResult, Retention } from './history-types.js'
import { historyOf, horizonOf } from './rebuild.js'
import type { VfsStore } from '../contract/store.js'

const DAY = 24 * 60 * 60 * 1000

/**
 * Applies a retention policy: keeps rebuildable every version any rule keeps (the last
 * `keepVersions`, those of the last `keepDays`, every pin and what follows it), then drops the
 * oldest versions past `maxBytes` of history whatever those rules keep, and never a version a live
 * branch was made at (`pinned`). At most `maxCommits` commits go per call (`more` says whether a
 * later call has more to drop); each call is one atomic `prune` in the store. No rule: nothing is dropped.
 */
export async function collectGarbage(
  store: VfsStore,
  namespace: string,
  scope: string,
  current: number,
  retention: Retention,
  pinned: readonly number[],
): Promise<GcResult> {
  const history = historyOf(store, 'collect history')
  const before = await horizonOf(history, namespace, scope, current)
  const kept = { horizon: before, removedChanges: 0, removedBlobs: 0, more: false }
  const keeping = retention.keepVersions !== undefined || retention.keepDays !== undefined || (retention.pins?.length ?? 0) > 0
  if (!keeping && retention.maxBytes === undefined) return kept
  const changes = await history.changes(namespace, scope, {})
  let target = before
  if (keeping) target = Math.max(target, Math.min(current, ...keepFrom(retention, changes, current)))
  if (retention.maxBytes !== undefined) {
    const total = (await history.usage(namespace, scope)).bytes
    target = Math.max(target, capFrom(changes, total, retention.maxBytes))
  }
  target = Math.min(target, current, ...pinned)
  if (target <= before) return kept
  const upTo = batchEnd(changes, before, target, retention.maxCommits)
  const removed = await history.prune(namespace, scope, upTo)
  return {
    horizon: await horizonOf(history, namespace, scope, current),
    removedChanges: removed.changes,
    removedBlobs: removed.blobs,
    more: upTo < target,
  }
}

/** The oldest version each keep rule keeps rebuildable. */
function keepFrom(retention: Retention, changes: readonly StoredChange[], current: number): number[] {
  const keep: number[] = [...(retention.pins ?? [])]
  if (retention.keepVersions !== undefined) keep.push(current - Math.max(0, Math.floor(retention.keepVersions)))
  if (retention.keepDays !== undefined) {
    const cutoff = (retention.now ?? Date.now()) - retention.keepDays * DAY
    // The version current at the cutoff: the last commit made before it.
    let atCutoff: number | undefined
    for (const c of changes) if (c.time < cutoff) atCutoff = c.version
    keep.push(atCutoff ?? (changes[0] ? changes[0].version - 1 : current))
  }
  return keep
}

/**
 * The version history must be dropped up to for what remains to fit in `maxBytes`, oldest first,
 * commit by commit. A before-image shared by several changes is counted with each (the figure errs
 * towards dropping a commit more).
 */
function capFrom(changes: readonly StoredChange[], total: number, maxBytes: number): number {
  let left = total
  let upTo = 0
  for (let i = 0; i < changes.length && left > maxBytes;) {
    const version = changes[i].version
    for (; i < changes.length && changes[i].version === version; i++)
      left -= changeRowBytes(changes[i]) + (changes[i].hashBefore ? changes[i].sizeBefore + 64 : 0)
    upTo = version
  }
  return upTo
}

/** The end of this call's batch: `target`, or the `maxCommits`-th commit after `before` if that comes first. */
function batchEnd(changes: readonly StoredChange[], before: number, target: number, maxCommits: number | undefined): number {
  if (maxCommits === undefined) return target
  const most = Math.max(1, Math.floor(maxCommits))
  let n = 0
  let last = -1
  for (const c of changes) {
    if (c.version <= before || c.version > target || c.version === last) continue
    last = c.version
    if (++n === most) return c.version
  }
  return target
}
