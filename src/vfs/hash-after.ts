import type { StoredChange, StoreHistory } from '../contract/history.js'
import { nodeHash } from './hash.js'
import type { Node } from './tree.js'

/** Paths looked up in the store at once when their put is the last change a history read returned. */
const LOOKUPS_AT_ONCE = 8

/**
 * Fills in the `hashAfter` of every file put in `changes` (ordered by version) that lacks it: the
 * write path does not hash what it writes (see ChangeRecord.hashAfter), because it is known later
 * for free. What a put wrote is what the next change of its path replaced, so it is that change's
 * `hashBefore`; a put with no later change in `changes` is looked up: the path's durable node when
 * it still holds the put's version (`present`), else the path's next change in the store.
 * `only`: fill these (the changes a query returns); the rest of `changes` only tells what came next.
 * Mutates `changes` and returns it.
 */
export async function fillHashAfter(
  changes: StoredChange[],
  history: Pick<StoreHistory, 'changes'>,
  scope: { namespace: string; scope: string },
  present: (path: string) => Node | undefined,
  only?: ReadonlySet<StoredChange>,
): Promise<StoredChange[]> {
  const next = new Map<string, StoredChange>()
  const last: StoredChange[] = []
  for (let i = changes.length - 1; i >= 0; i--) {
    const c = changes[i]
    if (c.op === 'put' && c.kind === 'file' && c.hashAfter === undefined && (!only || only.has(c))) {
      const following = next.get(c.path)
      if (!following) last.push(c)
      else if (following.versionBefore === c.version && following.hashBefore !== undefined) c.hashAfter = following.hashBefore
    }
    next.set(c.path, c)
  }
  const lookUp = async (c: StoredChange) => {
    const node = present(c.path)
    if (node?.kind === 'file' && !node.pending && node.version === c.version) return void (c.hashAfter = await nodeHash(node))
    const [following] = await history.changes(scope.namespace, scope.scope, { path: c.path, after: c.version, limit: 1 })
    if (following?.versionBefore === c.version && following.hashBefore !== undefined) c.hashAfter = following.hashBefore
  }
  for (let i = 0; i < last.length; i += LOOKUPS_AT_ONCE) await Promise.all(last.slice(i, i + LOOKUPS_AT_ONCE).map(lookUp))
  return changes
}
