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
        const at = poisonIndex(ops, wrapper.plan.midBatchIndex ?? Math.floor(ops.length / 2))
        batchSizes.push(ops.length)
        return inner.commit(
          ns,
          scope,
          ops.map((op, i) => (i === at ? poisoned(op, n) : op)),
        )
      }
      batchSizes.push(ops.length)
      return inner.commit(ns, scope, ops)
    },
    deleteScope: (ns, scope) => inner.deleteScope(ns, scope),
    listScopes: ns => inner.listScopes(ns),
  }
  return wrapper
}

/** The first put at or after `from` (else the last put): only a put has data to poison. */
function poisonIndex(ops: StoreOp[], from: number): number {
  for (let i = Math.min(from, ops.length - 1); i < ops.length; i++) if (ops[i].op === 'put') return i
  for (let i = ops.length - 1; i >= 0; i--) if (ops[i].op === 'put') return i
  return ops.length - 1
}

/**
 * An op whose content throws when the adapter reads it. Path and expected version stay readable, so
 * adapters pass their version checks and fail only where they read content: after earlier ops of
 * the batch may already be written, which is what the rollback must undo.
 */
export function poisoned(op: StoreOp, n: number): StoreOp {
  if (op.op !== 'put') return op
  return {
    op: 'put',
    path: op.path,
    kind: op.kind,
    mtime: op.mtime,
    ctime: op.ctime,
    expectedVersion: op.expectedVersion,
    get data(): Uint8Array {
      throw new Error(`injected mid-batch failure of commit ${n}`)
    },
  }
}
