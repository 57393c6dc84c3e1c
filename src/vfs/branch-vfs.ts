import { VfsError } from '../contract/errors.js'
import type { ScopeSnapshot, StoredEntry } from '../contract/store.js'
import { BRANCH_META, BRANCH_NAME, branchScopeOf, branchStoreOf, metaOf, type BranchHost, type BranchMeta } from './branch.js'
import { checkRebuildable } from './rebuild.js'
import type { BranchStore } from './branch-store.js'
import { diffStates } from './diff.js'
import { actorJson } from './file-change.js'
// prettier-ignore
import type {
  BranchInfo, BranchOptions, CommitOptions, DiffOptions, GcResult, HistoryEntry, HistoryQuery, LandResult, Retention,
  RevertOptions, RevertTarget, VersionedVfs, VfsBranch, VfsDiff,
} from './history-types.js'
import { land } from './land.js'
import { branchLandings } from './branch-landing.js'
import { detachScope, importInto } from './branch-detach.js'
import { VfsLayer } from './layer.js'
import type { Vfs, VfsChange, VfsUsage } from './types.js'
import { StoreVfs } from './vfs.js'

/**
 * A branch: one layer (layer.ts) over its own workspace, a `VersionedVfs & StoreVfs` on the branch's
 * store (branch-store.ts), opened on first use, so that making a branch costs one small commit
 * whatever the size of the workspace; the first operation loads the base as of `baseVersion`, as
 * opening any workspace loads it.
 */
export class BranchVfs extends VfsLayer implements VfsBranch {
  /** The workspace it was branched from (the layer's `base`, made public). */
  declare readonly base: VersionedVfs
  readonly name: string
  readonly baseVersion: number
  private inner: (VersionedVfs & StoreVfs) | undefined
  private opening: Promise<VersionedVfs & StoreVfs> | undefined
  private readonly early = new Map<(change: VfsChange) => void, (() => void) | undefined>()
  private gone = false
  /** See {@link BranchMeta.detached}. */
  private detached: boolean

  constructor(
    private readonly host: BranchHost,
    branchScope: string,
    meta: BranchMeta,
  ) {
    super(host.vfs)
    ;(this as { scope: string }).scope = branchScope
    this.name = meta.name
    this.baseVersion = meta.baseVersion
    this.detached = meta.detached === true
  }

  get version(): number {
    return this.inner?.version ?? this.baseVersion
  }

  /** The branch's own workspace, loaded on first use. */
  open(): Promise<VersionedVfs & StoreVfs> {
    if (this.gone) return Promise.reject(new VfsError('ECLOSED', undefined, `the branch ${this.name} was committed or discarded`))
    this.opening ??= (async () => {
      const store = await branchStoreOf(this.host, this.scope, {
        name: this.name,
        baseScope: this.host.vfs.scope,
        baseVersion: this.baseVersion,
        detached: this.detached,
      })
      const vfs = await this.host.openWorkspace(store, this.namespace, this.scope)
      this.inner = vfs
      for (const listener of this.early.keys()) this.early.set(listener, vfs.onChange(listener))
      return vfs
    })()
    return this.opening
  }

  protected override below<T>(_path: string | undefined, fn: (vfs: Vfs) => Promise<T>): Promise<T> {
    return this.inner ? fn(this.inner) : this.open().then(fn)
  }

  protected override belowNow(): Vfs | undefined {
    return this.inner
  }

  override usage(): VfsUsage {
    return this.inner ? this.inner.usage() : this.host.vfs.usage()
  }

  override onChange(listener: (change: VfsChange) => void): () => void {
    if (this.inner) return this.inner.onChange(listener)
    this.early.set(listener, undefined)
    return () => {
      this.early.get(listener)?.()
      this.early.delete(listener)
    }
  }

  override async close(): Promise<void> {
    await this.inner?.close()
  }

  async history(query?: HistoryQuery): Promise<HistoryEntry[]> {
    return (await this.open()).history(query)
  }

  readAt(path: string, version: number): Promise<Uint8Array>
  readAt(path: string, version: number, encoding: 'utf8' | 'utf-8'): Promise<string>
  async readAt(path: string, version: number, encoding?: 'utf8' | 'utf-8'): Promise<Uint8Array | string> {
    const inner = await this.open()
    return encoding === undefined ? inner.readAt(path, version) : inner.readAt(path, version, encoding)
  }

  async at(version: number): Promise<Vfs> {
    return (await this.open()).at(version)
  }

  /** See VersionedStoreVfs.snapshot. */
  async snapshot(version: number): Promise<ScopeSnapshot> {
    return ((await this.open()) as VersionedVfs & StoreVfs & { snapshot(v: number): Promise<ScopeSnapshot> }).snapshot(version)
  }

  async diff(from: number, to?: number, options?: DiffOptions): Promise<VfsDiff> {
    return (await this.open()).diff(from, to, options)
  }

  async revert(target: RevertTarget, options?: RevertOptions): Promise<LandResult> {
    return (await this.open()).revert(target, options)
  }

  async gc(retention: Retention): Promise<GcResult> {
    return (await this.open()).gc(retention)
  }

  branch(options: BranchOptions = {}): Promise<VfsBranch> {
    return createBranch(this.nested(), options)
  }

  openBranch(name: string): Promise<VfsBranch> {
    return openBranch(this.nested(), name)
  }

  branches(): Promise<BranchInfo[]> {
    return listBranches(this.nested())
  }

  async diffBase(options?: DiffOptions): Promise<VfsDiff> {
    const { inner, store, base } = await this.settled()
    const tree = inner.treeNow()
    const after = (path: string): StoredEntry | undefined => {
      const node = tree.get(path)
      return node && { path, kind: node.kind, data: node.data, version: node.version, mtime: node.mtime, ctime: node.ctime }
    }
    const paths = store.ownPaths().map(o => o.path)
    return diffStates({ from: this.baseVersion, to: inner.version, paths, before: p => base.get(p), after }, options)
  }

  async commit(options: CommitOptions = {}): Promise<LandResult> {
    const { inner, store, base } = await this.settled()
    const target = await this.landingTarget()
    const merge = options.merge !== false
    const actor = options.actor !== undefined ? actorJson(options.actor) : undefined
    const attempt = async () => {
      await target.idle()
      const planned = await branchLandings({
        own: store.ownPaths(),
        base,
        branch: inner.treeNow(),
        target: target.treeNow(),
        merge,
        limits: options.limits,
      })
      return land(target, planned.landings, actor, planned.conflicts)
    }
    let result = await attempt()
    if (!result.ok && merge) {
      // The store refused what this instance expected: another instance wrote since. Catch up once
      // and merge against what it wrote (a conflict again is final).
      const seen = target.version
      await target.refresh()
      if (target.version !== seen) result = await attempt()
    }
    if (result.ok) await this.discard()
    return result
  }

  async discard(): Promise<void> {
    if (this.gone) return
    await this.inner?.close()
    this.gone = true
    await this.host.raw.deleteScope(this.namespace, this.scope)
  }

  /**
   * Makes the branch stand on its own (branch-detach.ts): what it shows of its base is copied into
   * its own scope in one commit, so the base's scope may be deleted. This instance reopens on its
   * next operation; change listeners subscribed before are dropped.
   */
  async detach(): Promise<void> {
    if (this.detached) return
    const { store, base } = await this.settled()
    await detachScope(this.host.raw, this.namespace, this.scope, store, base, {
      name: this.name,
      baseScope: this.host.vfs.scope,
      baseVersion: this.baseVersion,
    })
    await this.reopen(true)
  }

  /** Writes entries, as they are, into a detached branch's own scope, in one commit without history (a copy made elsewhere: branch-detach.ts). */
  async importEntries(entries: readonly StoredEntry[]): Promise<void> {
    if (!this.detached) throw new VfsError('EINVAL', undefined, 'entries are imported only into a detached branch')
    await importInto(this.host.raw, this.namespace, this.scope, entries)
    await this.reopen(true)
  }

  private async reopen(detached: boolean): Promise<void> {
    await this.inner?.close()
    this.inner = undefined
    this.opening = undefined
    this.early.clear()
    this.detached = detached
  }

  /** The branch's workspace with every write durable, its store and the base as of baseVersion. */
  private async settled(): Promise<{ inner: VersionedVfs & StoreVfs; store: BranchStore; base: Map<string, StoredEntry> }> {
    const inner = await this.open()
    await inner.flush()
    const store = inner.storeBelow as BranchStore
    return { inner, store, base: await store.baseAt() }
  }

  /** The store workspace a commit lands on: the base itself, or the workspace of a base that is a branch. */
  private async landingTarget(): Promise<StoreVfs> {
    const base = this.host.vfs
    if (base instanceof BranchVfs) return base.open()
    if (base instanceof StoreVfs) return base
    throw new VfsError('EINVAL', undefined, 'a branch lands only on the workspace it was made from')
  }

  private nested(): BranchHost {
    return { ...this.host, vfs: this, store: async () => (await this.open()).storeBelow }
  }
}

/** Makes a branch: one small commit (its meta entry) whatever the workspace's size. */
export async function createBranch(host: BranchHost, options: BranchOptions): Promise<VfsBranch> {
  const { vfs, raw } = host
  const name = options.name ?? crypto.randomUUID()
  if (!BRANCH_NAME.test(name))
    throw new VfsError('EINVAL', undefined, `a branch name is 1-64 letters, digits, '.', '_' or '-', not ${JSON.stringify(name)}`)
  const at = options.at ?? vfs.version
  const detached = (options as { detached?: boolean }).detached === true
  if (at !== vfs.version && !detached) {
    const store = await host.store()
    if (!store.history)
      throw new VfsError('EINVAL', undefined, `the ${store.kind} store keeps no history, so it cannot branch at a past version`)
    await checkRebuildable(store.history, vfs.namespace, vfs.scope, at, vfs.version)
  }
  const scope = branchScopeOf(vfs.scope, name)
  const meta: BranchMeta = { name, baseScope: vfs.scope, baseVersion: at, ...(detached ? { detached } : {}) }
  const now = Date.now()
  const data = new TextEncoder().encode(JSON.stringify(meta))
  try {
    await raw.commit(vfs.namespace, scope, [
      { op: 'put', path: BRANCH_META, kind: 'file', data, mtime: now, ctime: now, expectedVersion: 0 },
    ])
  } catch (error) {
    if (error instanceof VfsError && error.code === 'ECONFLICT')
      throw new VfsError('EEXIST', undefined, `a branch named ${name} exists; open it with openBranch()`)
    throw error
  }
  return new BranchVfs(host, scope, meta)
}

/** Reopens a branch by name (after a restart too). */
export async function openBranch(host: BranchHost, name: string): Promise<VfsBranch> {
  const scope = branchScopeOf(host.vfs.scope, name)
  const meta = metaOf((await host.raw.load(host.vfs.namespace, scope)).entries)
  if (!meta || meta.baseScope !== host.vfs.scope) throw new VfsError('ENOENT', undefined, `no branch named ${name} of this workspace`)
  return new BranchVfs(host, scope, meta)
}

/** The live branches of a workspace (not those of its branches). */
export async function listBranches(host: BranchHost): Promise<BranchInfo[]> {
  const prefix = branchScopeOf(host.vfs.scope, '')
  const scopes = (await host.raw.listScopes(host.vfs.namespace)).filter(
    s => s.startsWith(prefix) && BRANCH_NAME.test(s.slice(prefix.length)),
  )
  const out: BranchInfo[] = []
  for (const scope of scopes) {
    const meta = metaOf((await host.raw.load(host.vfs.namespace, scope)).entries)
    if (meta && meta.baseScope === host.vfs.scope) out.push({ name: meta.name, scope, baseVersion: meta.baseVersion })
  }
  return out
}
