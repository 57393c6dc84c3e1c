import type { DBSchema, IDBPDatabase } from 'idb'
import { VfsError } from '../src/contract/errors.js'
import {
  checkExpectedVersions,
  checkSubtrees,
  subtreeChecks,
  subtreeRange,
  type ScopeSnapshot,
  type StoredEntry,
  type StoreOp,
  type VfsStore,
} from '../src/contract/store.js'
import { recordHeldDirectories } from '../src/contract/history.js'
import { dropHistory, HISTORY_STORES, indexedDbHistory, upgradeHistory, writeHistory, type HistoryDb } from './indexeddb-history.js'

/** Options of {@link indexedDbStore}. */
export interface IndexedDbStoreOptions {
  /** Name of the IndexedDB database (one per app is enough: namespaces and scopes live inside). Default `agent-vfs`. */
  dbName?: string
}

/** What other tabs receive on the store's BroadcastChannel after each commit. */
export interface IndexedDbCommitMessage {
  namespace: string
  scope: string
  version: number
}

interface EntryRecord extends StoredEntry {
  namespace: string
  scope: string
}

interface VfsDb extends DBSchema {
  changes: HistoryDb['changes']
  blobs: HistoryDb['blobs']
  entries: { key: [string, string, string]; value: EntryRecord }
  /** `deleted`: set by deleteScope, which keeps the version so that versions never repeat. */
  scopes: { key: [string, string]; value: { namespace: string; scope: string; version: number; deleted?: boolean } }
}

/** 2: history's object stores (indexeddb-history.ts). */
const SCHEMA_VERSION = 2
// An array sorts after every string in IndexedDB, so `[ns, scope, []]` bounds all paths of a scope.
const scopeRange = (ns: string, scope: string) => IDBKeyRange.bound([ns, scope], [ns, scope, []])
const noop = () => undefined

/**
 * A store in the browser's IndexedDB: workspaces survive reloads, and tabs of one origin share
 * them. Every commit is one readwrite transaction that checks expected versions and writes, so of
 * two tabs writing the same file exactly one wins and the other gets ECONFLICT. Tabs learn of each
 * other's commits through a BroadcastChannel named `agent-vfs:<dbName>` ({@link IndexedDbCommitMessage}).
 */
export function indexedDbStore(options: IndexedDbStoreOptions = {}): VfsStore {
  const dbName = options.dbName ?? 'agent-vfs'
  if (typeof indexedDB === 'undefined') {
    throw new VfsError(
      'ESTORE',
      undefined,
      `IndexedDB is not available in this runtime, so indexedDbStore({ dbName: ${JSON.stringify(dbName)} }) cannot work; use it in a browser (window or worker), or pick memoryStore(), postgresStore() or a Cloudflare store`,
    )
  }
  const keyOf = (ns: string, scope: string) => JSON.stringify([ns, scope])
  const watchers = new Map<string, Set<(version: number) => void>>()
  let db: Promise<IDBPDatabase<VfsDb>> | undefined
  let channel: BroadcastChannel | undefined
  let closed = false

  const connect = (): Promise<IDBPDatabase<VfsDb>> => {
    if (closed)
      return Promise.reject(new VfsError('ECLOSED', undefined, `this indexedDbStore (${dbName}) was closed; create a new indexedDbStore()`))
    // idb is imported by the first connection: Node and workerd import this module with the rest of
    // dist/index.js but never connect, and a cold start should not load it (bench runjs.cold.js).
    db ??= import('idb')
      .then(({ openDB }) =>
        openDB<VfsDb>(dbName, SCHEMA_VERSION, {
          upgrade(d, oldVersion) {
            if (oldVersion < 1) {
              d.createObjectStore('entries', { keyPath: ['namespace', 'scope', 'path'] })
              d.createObjectStore('scopes', { keyPath: ['namespace', 'scope'] })
            }
            upgradeHistory(d as unknown as IDBPDatabase<HistoryDb>)
          },
          // Another tab wants a newer schema or to delete the database: step aside instead of
          // blocking it forever. The next call here reopens (and fails clearly if the schema moved on).
          blocking() {
            void db?.then(d => d.close(), noop)
            db = undefined
          },
          // The browser closed the connection (storage cleared, disk error): reopen on the next call.
          terminated() {
            db = undefined
          },
          // `blocked` is not handled: our own old connections close on `blocking`, so waiting is right.
        }),
      )
      .catch(cause => {
        db = undefined
        throw new VfsError(
          'ESTORE',
          undefined,
          `cannot open IndexedDB database ${JSON.stringify(dbName)}: ${String(cause?.message ?? cause)}; check that site storage is allowed (private modes and sandboxed iframes may forbid it)`,
          { cause },
        )
      })
    return db
  }

  const deliver = (message: IndexedDbCommitMessage) => {
    for (const listener of watchers.get(keyOf(message.namespace, message.scope)) ?? []) listener(message.version)
  }
  // One channel per store, opened lazily: BroadcastChannel never delivers to the object that
  // posted, so a store does not hear its own commits through it.
  const channelOf = (): BroadcastChannel | undefined => {
    if (closed || typeof BroadcastChannel === 'undefined') return undefined
    if (!channel) {
      channel = new BroadcastChannel(`agent-vfs:${dbName}`)
      channel.onmessage = ({ data }: MessageEvent) => {
        if (typeof data?.namespace === 'string' && typeof data.scope === 'string' && Number.isInteger(data.version)) deliver(data)
      }
    }
    return channel
  }

  return {
    kind: 'indexeddb',
    history: indexedDbHistory(connect as unknown as () => Promise<IDBPDatabase<HistoryDb>>),

    async load(namespace, scope): Promise<ScopeSnapshot> {
      const tx = (await connect()).transaction(['entries', 'scopes'], 'readonly')
      const [head, records] = await Promise.all([
        tx.objectStore('scopes').get([namespace, scope]),
        tx.objectStore('entries').getAll(scopeRange(namespace, scope)),
        tx.done,
      ])
      const entries = records.map(({ path, kind, data, version, mtime, ctime }) => ({ path, kind, data, version, mtime, ctime }))
      return { version: head?.version ?? 0, entries }
    },

    async commit(namespace, scope, ops: StoreOp[], record) {
      const tx = (await connect()).transaction(['entries', 'scopes', ...HISTORY_STORES], 'readwrite')
      const entries = tx.objectStore('entries')
      const keyOfPath = (path: string): [string, string, string] => [namespace, scope, path]
      // Every request's promise is kept, so an abort rejects them all here, not as unhandled rejections.
      const requests: Promise<unknown>[] = []
      const track = <T>(request: Promise<T>): Promise<T> => (requests.push(request), request)
      try {
        // The checks run in the same transaction as the writes: IndexedDB serialises overlapping
        // readwrite transactions (across tabs too), so nobody can commit between check and write.
        // The scope head and the checked entries are read in one round trip.
        const checked = ops.filter(op => op.expectedVersion !== null)
        const subtrees = subtreeChecks(ops)
        const [head, counts, ...current] = await Promise.all([
          track(tx.objectStore('scopes').get([namespace, scope])),
          Promise.all(
            subtrees.map(({ path }) => {
              const { from, to } = subtreeRange(path)
              return track(entries.count(IDBKeyRange.bound([namespace, scope, from], [namespace, scope, to], false, true)))
            }),
          ),
          ...checked.map(op => track(entries.get(keyOfPath(op.path)))),
        ])
        const version = ((head as { version?: number } | undefined)?.version ?? 0) + 1
        const found = new Map(checked.map((op, i) => [op.path, current[i] as EntryRecord | undefined]))
        checkExpectedVersions(checked, path => found.get(path))
        const below = new Map(subtrees.map(({ path }, i) => [path, (counts as number[])[i]]))
        checkSubtrees(ops, path => below.get(path) ?? 0)
        for (const op of ops) {
          if (op.op === 'check') continue
          if (op.op === 'delete') track(entries.delete(keyOfPath(op.path)))
          else
            track(
              entries.put({
                namespace,
                scope,
                path: op.path,
                kind: op.kind,
                data: ownBytes(op.data),
                version,
                mtime: op.mtime,
                ctime: op.ctime,
              }),
            )
        }
        recordHeldDirectories(record, path => found.get(path))
        if (record) writeHistory(tx as never, namespace, scope, version, record, track)
        track(tx.objectStore('scopes').put({ namespace, scope, version }))
        await Promise.all([...requests, tx.done])
        announce({ namespace, scope, version })
        return version
      } catch (error) {
        // Without the abort, the requests already issued would commit when the transaction idles.
        try {
          tx.abort()
        } catch {
          // IndexedDB already aborted it (e.g. quota exceeded)
        }
        for (const r of [...requests, tx.done]) r.catch(noop)
        // When IndexedDB itself aborts (quota), requests fail with a bare AbortError; the reason is on the transaction.
        const reason =
          error instanceof DOMException && error.name === 'AbortError'
            ? await tx.done.then(
                () => error,
                (e: unknown) => e,
              )
            : error
        throw explain(reason, namespace, scope)
      }
    },

    async deleteScope(namespace, scope) {
      const tx = (await connect()).transaction(['entries', 'scopes', ...HISTORY_STORES], 'readwrite')
      const scopes = tx.objectStore('scopes')
      const head = await scopes.get([namespace, scope])
      await Promise.all([
        tx.objectStore('entries').delete(scopeRange(namespace, scope)),
        ...dropHistory(tx as never, namespace, scope),
        head ? scopes.put({ ...head, deleted: true }) : undefined,
        tx.done,
      ])
    },

    async listScopes(namespace) {
      // Every commit writes the scope's version record, so the scopes store alone lists them all.
      const heads = await (await connect()).getAll('scopes', IDBKeyRange.bound([namespace], [namespace, []]))
      return heads.filter(h => !h.deleted).map(h => h.scope)
    },

    watch(namespace, scope, listener) {
      channelOf()
      const key = keyOf(namespace, scope)
      const set = watchers.get(key) ?? new Set()
      set.add(listener)
      watchers.set(key, set)
      return () => {
        set.delete(listener)
        if (set.size === 0 && watchers.get(key) === set) watchers.delete(key)
      }
    },

    async close() {
      closed = true
      channel?.close()
      channel = undefined
      watchers.clear()
      const open = db
      db = undefined
      ;(await open?.catch(noop))?.close()
    },
  }

  function announce(message: IndexedDbCommitMessage): void {
    channelOf()?.postMessage(message)
    // Other workspaces over this same store object hear it too, one task later: by then the
    // committing workspace has recorded the version as its own and ignores the notice.
    if (watchers.has(keyOf(message.namespace, message.scope))) setTimeout(() => deliver(message), 0)
  }
}

/**
 * A view of a bigger buffer would store the whole buffer (structured clone copies `.buffer`),
 * so such views are copied down to their own bytes first.
 */
function ownBytes(data: Uint8Array): Uint8Array {
  return data.byteOffset === 0 && data.byteLength === data.buffer.byteLength ? data : data.slice()
}

/** Turns the one IndexedDB failure users can act on into a typed error; everything else passes as is. */
function explain(error: unknown, namespace: string, scope: string): unknown {
  if (error instanceof DOMException && error.name === 'QuotaExceededError') {
    return new VfsError(
      'ESTORE',
      undefined,
      `the browser's storage quota is full; nothing of the batch on ${namespace}/${scope} was written. Delete scopes, or ask for more with navigator.storage.persist()`,
      { cause: error },
    )
  }
  return error
}
