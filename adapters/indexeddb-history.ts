import type { DBSchema, IDBPDatabase, IDBPTransaction } from 'idb'
import {
  changeMatches,
  changeRowBytes,
  neededBlobs,
  storedChanges,
  type CommitRecord,
  type StoredChange,
  type StoreHistory,
} from '../src/contract/history.js'

/**
 * History for the IndexedDB store, in two object stores of the same database: `changes` keyed by
 * (namespace, scope, version, path) and `blobs` keyed by (namespace, scope, hash). A commit's
 * readwrite transaction spans them too (`write`), so history lands with the batch or not at all.
 */
export interface HistoryDb extends DBSchema {
  changes: { key: [string, string, number, string]; value: StoredChange & { namespace: string; scope: string } }
  blobs: { key: [string, string, string]; value: { namespace: string; scope: string; hash: string; data: Uint8Array } }
}

export const HISTORY_STORES = ['changes', 'blobs'] as const

type Db = IDBPDatabase<HistoryDb>
type Tx = IDBPTransaction<HistoryDb, ('changes' | 'blobs')[], 'readwrite'>

/** Creates the history object stores when the database predates them (schema version 2). */
export function upgradeHistory(d: Db): void {
  if (!d.objectStoreNames.contains('changes')) d.createObjectStore('changes', { keyPath: ['namespace', 'scope', 'version', 'path'] })
  if (!d.objectStoreNames.contains('blobs')) d.createObjectStore('blobs', { keyPath: ['namespace', 'scope', 'hash'] })
}

const range = (ns: string, scope: string, after = -1, upTo = Number.MAX_SAFE_INTEGER) =>
  IDBKeyRange.bound([ns, scope, after], [ns, scope, upTo, []], true, false)
const blobRange = (ns: string, scope: string) => IDBKeyRange.bound([ns, scope], [ns, scope, []])

/** Inside the commit's transaction: the record's rows and its blobs (a put of a hash the scope holds rewrites the same bytes). */
export function writeHistory(
  tx: Tx,
  namespace: string,
  scope: string,
  version: number,
  record: CommitRecord,
  track: (p: Promise<unknown>) => void,
) {
  const changes = tx.objectStore('changes')
  for (const c of storedChanges(record, version)) track(changes.put({ ...c, namespace, scope }))
  const blobs = tx.objectStore('blobs')
  for (const b of record.blobs) track(blobs.put({ namespace, scope, hash: b.hash, data: b.data.slice() }))
}

/** Deletes a scope's history inside deleteScope's transaction. */
export function dropHistory(tx: Tx, namespace: string, scope: string): Promise<unknown>[] {
  return [tx.objectStore('changes').delete(range(namespace, scope)), tx.objectStore('blobs').delete(blobRange(namespace, scope))]
}

export function indexedDbHistory(connect: () => Promise<Db>): StoreHistory {
  const strip = ({ namespace: _n, scope: _s, ...c }: StoredChange & { namespace: string; scope: string }): StoredChange => c
  return {
    async changes(namespace, scope, query = {}) {
      const rows = await (
        await connect()
      ).getAll('changes', range(namespace, scope, query.after ?? -1, query.upTo ?? Number.MAX_SAFE_INTEGER))
      const out = rows.map(strip).filter(c => changeMatches(c, query))
      return query.limit === undefined ? out : out.slice(0, query.limit)
    },
    async blobs(namespace, scope, hashes) {
      const tx = (await connect()).transaction('blobs', 'readonly')
      const found = await Promise.all(hashes.map(h => tx.store.get([namespace, scope, h])))
      await tx.done
      const out = new Map<string, Uint8Array>()
      for (const b of found) if (b) out.set(b.hash, b.data)
      return out
    },
    async oldest(namespace, scope) {
      const cursor = await (await connect()).transaction('changes').store.openCursor(range(namespace, scope))
      return cursor?.value.version
    },
    async prune(namespace, scope, upTo) {
      const tx = (await connect()).transaction(['changes', 'blobs'], 'readwrite')
      const changes = tx.objectStore('changes')
      const gone = await changes.count(range(namespace, scope, -1, upTo))
      await changes.delete(range(namespace, scope, -1, upTo))
      const needed = neededBlobs(await changes.getAll(range(namespace, scope)))
      let freed = 0
      for (const key of await tx.objectStore('blobs').getAllKeys(blobRange(namespace, scope))) {
        if (needed.has(key[2])) continue
        freed++
        await tx.objectStore('blobs').delete(key)
      }
      await tx.done
      return { changes: gone, blobs: freed }
    },
    async usage(namespace, scope) {
      const db = await connect()
      const [rows, blobs] = await Promise.all([
        db.getAll('changes', range(namespace, scope)),
        db.getAll('blobs', blobRange(namespace, scope)),
      ])
      let bytes = 0
      for (const c of rows) bytes += changeRowBytes(c)
      for (const b of blobs) bytes += b.data.length + 64
      return { changes: rows.length, blobs: blobs.length, bytes }
    },
  }
}
