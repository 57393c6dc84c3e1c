import { isVfsError } from 'agent-vfs'
import type { ScopeSnapshot, StoreOp, VfsStore } from 'agent-vfs'
import { SessionError } from '../errors.js'

/** A JSON record as loaded, with the version a conditional write must name. */
export interface Loaded<T> {
  value: T
  version: number
}

/** Every JSON file of a scope by path. */
export type RecordMap = Map<string, Loaded<unknown>>

const encoder = new TextEncoder()
const decoder = new TextDecoder()

/** Loads a scope's files as parsed JSON (`.jsonl` files as arrays of lines). */
export async function loadRecords(store: VfsStore, namespace: string, scope: string): Promise<RecordMap> {
  return recordsOf(await store.load(namespace, scope))
}

/** A loaded scope's files as parsed JSON (`.jsonl` files as arrays of lines). */
export function recordsOf(snapshot: ScopeSnapshot): RecordMap {
  const out: RecordMap = new Map()
  for (const e of snapshot.entries) {
    if (e.kind !== 'file') continue
    const text = decoder.decode(e.data)
    const value = e.path.endsWith('.jsonl')
      ? text
          .split('\n')
          .filter(l => l !== '')
          .map(l => JSON.parse(l))
      : JSON.parse(text)
    out.set(e.path, { value, version: e.version })
  }
  return out
}

/** A put of JSON, conditional on `expectedVersion` (0: must not exist; null: unconditional). */
export function putJson(path: string, value: unknown, expectedVersion: number | null): StoreOp {
  const now = Date.now()
  return { op: 'put', path, kind: 'file', data: encoder.encode(JSON.stringify(value)), mtime: now, ctime: now, expectedVersion }
}

/** A put of JSON lines (each a serialised value, without its newline). */
export function putLines(path: string, lines: readonly string[], expectedVersion: number | null): StoreOp {
  const now = Date.now()
  return {
    op: 'put',
    path,
    kind: 'file',
    data: encoder.encode(lines.map(line => line + '\n').join('')),
    mtime: now,
    ctime: now,
    expectedVersion,
  }
}

/** A conditional delete. */
export function deleteRecord(path: string, expectedVersion: number | null): StoreOp {
  return { op: 'delete', path, expectedVersion }
}

/** Per store and scope: the tail of this process's read-modify-writes, so they queue instead of conflicting. */
const queues = new WeakMap<VfsStore, Map<string, Promise<unknown>>>()

/**
 * Read-modify-write of one scope: `change` sees the records and returns the ops (conditional on
 * the versions it saw) and a value. Updates from this process to one scope run one at a time; a
 * conflict with another process loads again and retries after a short random wait.
 */
export function updateRecords<T>(
  store: VfsStore,
  namespace: string,
  scope: string,
  change: (records: RecordMap) => { ops: StoreOp[]; value: T } | Promise<{ ops: StoreOp[]; value: T }>,
  attempts = 50,
): Promise<T> {
  let perStore = queues.get(store)
  if (!perStore) queues.set(store, (perStore = new Map()))
  const key = JSON.stringify([namespace, scope])
  const previous = perStore.get(key) ?? Promise.resolve()
  const run = previous.then(() => attempt(store, namespace, scope, change, attempts))
  const tail = run.catch(() => undefined)
  perStore.set(key, tail)
  void tail.then(() => perStore.get(key) === tail && perStore.delete(key))
  return run
}

async function attempt<T>(
  store: VfsStore,
  namespace: string,
  scope: string,
  change: (records: RecordMap) => { ops: StoreOp[]; value: T } | Promise<{ ops: StoreOp[]; value: T }>,
  attempts: number,
): Promise<T> {
  for (let i = 0; ; i++) {
    const records = await loadRecords(store, namespace, scope)
    const { ops, value } = await change(records)
    if (ops.length === 0) return value
    try {
      await store.commit(namespace, scope, ops)
      return value
    } catch (error) {
      if (!isVfsError(error, 'ECONFLICT')) throw error
      if (i + 1 >= attempts) throw new SessionError('conflict', `${scope} kept changing under ${attempts} attempts`, { cause: error })
      // Another process won this round: back off a little, at random, so the contenders spread out.
      await new Promise(r => setTimeout(r, Math.random() * Math.min(100, 2 ** i)))
    }
  }
}

/** The version a conditional write of `path` must name (0 when absent). */
export const versionOf = (records: RecordMap, path: string) => records.get(path)?.version ?? 0
