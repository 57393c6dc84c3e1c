import type { StoreOp, VfsStore } from '../../src/index.js'

export interface FailurePlan {
  /** 1-based numbers of the commits to fail before they reach the store. */
  failCommits?: number[]
  /**
   * 1-based numbers of the commits to fail part-way through: the op at `midBatchIndex` (default:
   * the middle one) throws when the adapter reads its data, after the adapter has started the batch.
   */
  failMidBatch?: number[]
  midBatchIndex?: number
  /** When set, every commit waits for this promise before it proceeds (to hold a batch in flight). */
  gate?: Promise<void>
}

export interface FailingStore extends VfsStore {
  /** Commits attempted so far (including failed ones). */
  readonly commits: number
  /** Batches that reached the inner store, as op counts. */
  readonly batchSizes: number[]
  plan: FailurePlan
}

/**
 * Wraps a real store and fails chosen commits, to prove that a failed batch leaves nothing behind
 * and that the workspace rolls back exactly the writes that were not acknowledged.
 */
export function failingStore(inner: VfsStore, plan: FailurePlan = {}): FailingStore {
  let commits = 0
  const batchSizes: number[] = []
  const wrapper: FailingStore = {
    kind: inner.kind,
    plan,
    get commits() {
      return commits
    },
    batchSizes,
    load: (ns, scope) => inner.load(ns, scope),
    async commit(ns, scope, ops) {
      const n = ++commits
      if (wrapper.plan.gate) await wrapper.plan.gate
      if (wrapper.plan.failCommits?.includes(n)) throw new Error(`injected failure of commit ${n}`)
      if (wrapper.plan.failMidBatch?.includes(n)) {
        const at = Math.min(ops.length - 1, wrapper.plan.midBatchIndex ?? Math.floor(ops.length / 2))
        batchSizes.push(ops.length)
        return inner.commit(ns, scope, ops.map((op, i) => (i === at ? poisoned(op, n) : op)))
      }
      batchSizes.push(ops.length)
      return inner.commit(ns, scope, ops)
    },
    deleteScope: (ns, scope) => inner.deleteScope(ns, scope),
    listScopes: (ns) => inner.listScopes(ns),
  }
  return wrapper
}

/** An op that throws as soon as the adapter touches its data or path. */
export function poisoned(op: StoreOp, n: number): StoreOp {
  const fail = () => {
    throw new Error(`injected mid-batch failure of commit ${n}`)
  }
  if (op.op === 'put') {
    return { op: 'put', kind: op.kind, mtime: op.mtime, ctime: op.ctime, expectedVersion: op.expectedVersion, get path() { return fail() }, get data() { return fail() } } as StoreOp
  }
  return { op: 'delete', expectedVersion: op.expectedVersion, get path() { return fail() } } as StoreOp
}
