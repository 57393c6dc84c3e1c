import type { ChangeRecord, CommitRecord, HistoryBlob } from '../contract/history.js'
import type { StoreOp } from '../contract/store.js'
import { nodeHash } from './hash.js'
import type { Node } from './tree.js'

/**
 * Builds the history record of a batch: for every path the batch writes, what it held before (the
 * durable node the batch expects, so the store held exactly that), with the before-images keyed by
 * their content hash, each distinct content once. Only what cannot be known later is computed here:
 * a before-image is hashed (its key), the content a put writes is not — its hash (`hashAfter`) is
 * the next change's `hashBefore`, or the hash of what the path holds now, found when history is read
 * (hash-after.ts). A create hashes nothing. `withHistory` false (a store without history) skips
 * hashing and before-images: the record then only feeds the change notices.
 */
export async function buildCommitRecord(
  ops: readonly StoreOp[],
  before: (path: string) => Node | null,
  actorOf: (path: string) => string | undefined,
  withHistory: boolean,
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
    if (withHistory && old?.kind === 'file') {
      const hash = old.hash ?? (await nodeHash(old))
      change.hashBefore = hash
      if (!blobs.has(hash)) blobs.set(hash, { hash, data: old.data })
    }
    changes.push(change)
  }
  return { time: Date.now(), changes, blobs: [...blobs.values()] }
}
