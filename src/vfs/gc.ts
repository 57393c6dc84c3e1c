import type { GcResult, Retention } from './history-types.js'
import { historyOf, horizonOf } from './rebuild.js'
import type { VfsStore } from '../contract/store.js'

const DAY = 24 * 60 * 60 * 1000

/**
 * Applies a retention policy: keeps rebuildable every version any rule keeps (the last
 * `keepVersions`, those of the last `keepDays`, every pin and what follows it) and every version a
 * live branch was made at (`pinned`), and drops the history before. No rule: nothing is dropped.
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
  const keep: number[] = [...pinned, ...(retention.pins ?? [])]
  if (retention.keepVersions !== undefined) keep.push(current - Math.max(0, Math.floor(retention.keepVersions)))
  if (retention.keepDays !== undefined) {
    const cutoff = (retention.now ?? Date.now()) - retention.keepDays * DAY
    // The version current at the cutoff: the last commit made before it.
    const changes = await history.changes(namespace, scope, {})
    let atCutoff: number | undefined
    for (const c of changes) if (c.time < cutoff) atCutoff = c.version
    keep.push(atCutoff ?? (changes[0] ? changes[0].version - 1 : current))
  }
  const ruled = retention.keepVersions !== undefined || retention.keepDays !== undefined || (retention.pins?.length ?? 0) > 0
  const before = await horizonOf(history, namespace, scope, current)
  if (!ruled) return { horizon: before, removedChanges: 0, removedBlobs: 0 }
  const upTo = Math.min(current, ...keep)
  if (upTo <= before) return { horizon: before, removedChanges: 0, removedBlobs: 0 }
  const removed = await history.prune(namespace, scope, upTo)
  return { horizon: await horizonOf(history, namespace, scope, current), removedChanges: removed.changes, removedBlobs: removed.blobs }
}
