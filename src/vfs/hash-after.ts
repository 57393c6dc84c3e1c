import type { StoredChange, StoreHistory } from '../contract/history.js'
import { nodeHash } from './hash.js'
import type { Node } from './tree.js'

/** Up to this many paths are looked up in the store one query each; more, with one read of the range after them. */
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
  const inStore: StoredChange[] = []
  for (const c of last) {
    const node = present(c.path)
    if (node?.kind === 'file' && !node.pending && node.version === c.version) c.hashAfter = await nodeHash(node)
    else inStore.push(c)
  }
  const settle = (c: StoredChange, following: StoredChange | undefined) => {
    if (following?.versionBefore === c.version && following.hashBefore !== undefined) c.hashAfter = following.hashBefore
  }
  if (inStore.length > LOOKUPS_AT_ONCE) {
    // Many paths (a query bounded by `upTo` over a big commit): one read of what came after the
    // oldest of them, no more than `history({ after })` reads, instead of a round trip per path.
    const after = inStore.reduce((min, c) => Math.min(min, c.version), Infinity)
    // The change that follows a put on its path is the one that replaced the put's version.
    const replaced = new Map<string, StoredChange>()
    for (const f of await history.changes(scope.namespace, scope.scope, { after })) {
      const key = `${f.versionBefore} ${f.path}`
      if (!replaced.has(key)) replaced.set(key, f)
    }
    for (const c of inStore) settle(c, replaced.get(`${c.version} ${c.path}`))
  } else {
    await Promise.all(
      inStore.map(async c =>
        settle(c, (await history.changes(scope.namespace, scope.scope, { path: c.path, after: c.version, limit: 1 }))[0]),
      ),
    )
  }
  return changes
}
