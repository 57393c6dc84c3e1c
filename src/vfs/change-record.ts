import type { ChangeRecord, CommitRecord, HistoryBlob } from '../contract/history.js'
import type { StoreOp } from '../contract/store.js'
import { nodeHash } from './hash.js'
import type { Node } from './tree.js'

/**
 * Builds the history record of a batch: for every path the batch writes, what it held before (the
 * durable node the batch expects, so the store held exactly that) and what it holds after, with
 * content hashes and the before-images, each distinct content once. `withHashes` false (a store
 * without history) skips hashing: the record then only feeds the change notices.
 */
export async function buildCommitRecord(
  ops: readonly StoreOp[],
  before: (path: string) => Node | null,
  after: (path: string) => Node | null,
  actorOf: (path: string) => string | undefined,
  withHashes: boolean,
): Promise<CommitRecord> {
  const changes: ChangeRecord[] = []
  const blobs = new Map<string, HistoryBlob>()
  for (const op of ops) {
    if (op.op === 'check') continue
    const old = before(op.path)
    const change: ChangeRecord = {
      path: op.path,
      op: op.op,
      kind: op.op === 'put' ? op.kind : (old?.kind ?? 'file'),
      versionBefore: old?.version ?? 0,
      sizeBefore: old?.kind === 'file' ? old.data.length : 0,
      size: op.op === 'put' && op.kind === 'file' ? op.data.length : 0,
    }
    const actor = actorOf(op.path)
    if (actor !== undefined) change.actor = actor
    if (withHashes) {
      if (old?.kind === 'file') {
        change.hashBefore = await nodeHash(old)
        if (!blobs.has(change.hashBefore)) blobs.set(change.hashBefore, { hash: change.hashBefore, data: old.data })
      }
      const now = after(op.path)
      if (op.op === 'put' && now?.kind === 'file') change.hashAfter = await nodeHash(now)
    }
    changes.push(change)
  }
  return { time: Date.now(), changes, blobs: [...blobs.values()] }
}
