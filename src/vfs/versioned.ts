import { VfsError } from '../contract/errors.js'
import { isWithin, normalizePath } from '../contract/paths.js'
import type { ScopeSnapshot, StoredEntry, VfsStore } from '../contract/store.js'
import type { BranchHost } from './branch.js'
import { openBranch, createBranch, listBranches } from './branch-vfs.js'
import { BranchStore } from './branch-store.js'
import { diffStates } from './diff.js'
import { actorJson, toHistoryEntries } from './file-change.js'
import { frozenVfs } from './frozen.js'
import { fillHashAfter } from './hash-after.js'
import { collectGarbage } from './gc.js'
import type { StoredChange } from '../contract/history.js'
import type {
  BranchInfo,
  FileChange,
  BranchOptions,
  DiffOptions,
  GcResult,
  HistoryEntry,
  HistoryQuery,
  LandResult,
  Retention,
  RevertOptions,
  RevertTarget,
  VersionedVfs,
  VfsBranch,
  VfsDiff,
} from './history-types.js'
import { checkRebuildable, historyOf, snapshotAt, snapshotsAt } from './rebuild.js'
import { revert } from './revert.js'
import type { Vfs } from './types.js'
import { decodeUtf8 } from './bytes.js'
import { StoreVfs } from './vfs.js'

/**
 * The workspace with its history: what `openVfs` returns. History lives in the store (its
 * optional `history` capability, see the contract's history.ts); this class reads it, rebuilds the
 * past from it (rebuild.ts), diffs (diff.ts), reverts (revert.ts, land.ts), applies retention
 * (gc.ts) and makes branches (branch.ts).
 */
export class VersionedStoreVfs extends StoreVfs implements VersionedVfs {
  async history(query: HistoryQuery = {}): Promise<HistoryEntry[]> {
    const store = this.storeBelow
    if (!store.history) return []
    const exact = query.path !== undefined && !query.path.endsWith('/') ? normalizePath(query.path) : undefined
    const under = query.path !== undefined && query.path.endsWith('/') ? normalizePath(query.path) : undefined
    let stored = await store.history.changes(this.namespace, this.scope, { after: query.after, upTo: query.upTo, path: exact })
    if (under !== undefined) stored = stored.filter(c => isWithin(c.path, under))
    let entries = toHistoryEntries(stored)
    const origin = new Map<FileChange, StoredChange>()
    let i = 0
    for (const e of entries) for (const c of e.changes) origin.set(c, stored[i++])
    if (query.actor) {
      entries = entries.map(e => ({ ...e, changes: e.changes.filter(c => query.actor!(c.actor)) })).filter(e => e.changes.length > 0)
    }
    if (query.limit !== undefined) entries = entries.slice(0, query.limit)
    // Hashes of what puts wrote, for the changes returned only (a `limit: 1` lookup hashes one).
    const shown = new Set(entries.flatMap(e => e.changes.map(c => origin.get(c)!)))
    await fillHashAfter(stored, store.history, this, this.durableNode, shown)
    for (const e of entries)
      for (const c of e.changes) if (c.hashAfter === undefined && origin.get(c)!.hashAfter) c.hashAfter = origin.get(c)!.hashAfter
    return entries
  }

  readAt(path: string, version: number): Promise<Uint8Array>
  readAt(path: string, version: number, encoding: 'utf8' | 'utf-8'): Promise<string>
  async readAt(path: string, version: number, encoding?: 'utf8' | 'utf-8'): Promise<Uint8Array | string> {
    const p = normalizePath(path)
    const entry = (await this.snapshotAt(version)).get(p)
    if (!entry) throw new VfsError('ENOENT', path, `no such file at version ${version}`)
    if (entry.kind === 'dir') throw new VfsError('EISDIR', path, 'this is a directory, not a file')
    return encoding === undefined ? entry.data.slice() : decodeUtf8(entry.data)
  }

  async at(version: number): Promise<Vfs> {
    const snapshot = await snapshotAt(this.storeBelow, this.namespace, this.scope, version)
    return frozenVfs(this.namespace, this.scope, snapshot, this.storeBelow.kind)
  }

  /** Every entry of the workspace as it was at `version` (what a copy to another store sends; see branch-detach.ts). */
  async snapshot(version: number): Promise<ScopeSnapshot> {
    return { version, entries: [...(await this.snapshotAt(version)).values()] }
  }

  async diff(from: number, to?: number, options?: DiffOptions): Promise<VfsDiff> {
    const history = historyOf(this.storeBelow, 'diff versions')
    const end = to ?? Math.max(this.version, (await this.storeBelow.load(this.namespace, this.scope)).version)
    const [a, b] = await snapshotsAt(this.storeBelow, this.namespace, this.scope, [from, end])
    const changed = await history.changes(this.namespace, this.scope, { after: Math.min(from, end), upTo: Math.max(from, end) })
    const before = new Map(a.entries.map(e => [e.path, e]))
    const after = new Map(b.entries.map(e => [e.path, e]))
    return diffStates({ from, to: end, paths: changed.map(c => c.path), before: p => before.get(p), after: p => after.get(p) }, options)
  }

  async revert(target: RevertTarget, options: RevertOptions = {}): Promise<LandResult> {
    return revert(this, target, options.actor !== undefined ? actorJson(options.actor) : this.writingAs)
  }

  async gc(retention: Retention): Promise<GcResult> {
    const pinned = (await this.branches()).map(b => b.baseVersion)
    const result = await collectGarbage(this.storeBelow, this.namespace, this.scope, this.version, retention, pinned)
    await this.historyMeter.recount()
    return result
  }

  branch(options: BranchOptions = {}): Promise<VfsBranch> {
    return createBranch(this.branchHost(), options)
  }

  openBranch(name: string): Promise<VfsBranch> {
    return openBranch(this.branchHost(), name)
  }

  branches(): Promise<BranchInfo[]> {
    return listBranches(this.branchHost())
  }

  private branchHost(): BranchHost {
    const store = this.storeBelow
    return { vfs: this, raw: store instanceof BranchStore ? store.raw : store, store: async () => store, openWorkspace }
  }

  /** The scope at `version` as a path → entry map (the current durable state needs no history). */
  private async snapshotAt(version: number): Promise<Map<string, StoredEntry>> {
    const store = this.storeBelow
    if (store.history) {
      const current = Math.max(this.version, version)
      await checkRebuildable(store.history, this.namespace, this.scope, version, current)
    }
    const snapshot = await snapshotAt(store, this.namespace, this.scope, version)
    return new Map(snapshot.entries.map(e => [e.path, e]))
  }
}

/** A branch's own workspace: a versioned workspace on the branch's store (branch-vfs.ts opens it through its host). */
async function openWorkspace(store: VfsStore, namespace: string, scope: string): Promise<VersionedStoreVfs> {
  const vfs = new VersionedStoreVfs(store, namespace, scope)
  await vfs.hydrate(false)
  return vfs
}
