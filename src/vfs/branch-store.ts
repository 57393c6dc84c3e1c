import { VfsError } from '../contract/errors.js'
import type { CommitRecord, StoredChange, StoreHistory } from '../contract/history.js'
import { isWithin } from '../contract/paths.js'
// prettier-ignore
import {
  conflictError, expectationMet, subtreeConflictError,
  type Expectation, type ScopeSnapshot, type StoredEntry, type StoreOp, type VfsStore,
} from '../contract/store.js'

/**
 * The store a branch's workspace runs on: one branch scope of the raw store seen through its base.
 * The raw scope holds only what the branch wrote — entries it put and *whiteouts* for paths of the
 * base it removed — plus its meta entry (`BRANCH_META`, a path no workspace path can be); below
 * them shows the base as it was at `baseVersion` (rebuilt once from history, then immutable).
 * Branch versions continue from the base's: raw version r is branch version `baseVersion + r`, so
 * every version a branch entry has is above every version of the base it shows, and expectations
 * cannot mistake one for the other. Commits go to the raw scope with the raw store's own checks,
 * so two writers on one branch are detected like two on any scope.
 */
export class BranchStore implements VfsStore {
  readonly kind: string
  readonly history: StoreHistory
  /** Raw versions and kinds of what this instance last saw in the raw scope (whiteouts included). */
  private own = new Map<string, { raw: number; kind: 'file' | 'dir'; whiteout: boolean }>()
  private baseEntries: Map<string, StoredEntry> | undefined

  constructor(
    readonly raw: VfsStore,
    readonly base: { store: VfsStore; scope: string; version: number; detached?: boolean; snapshot: () => Promise<ScopeSnapshot> },
    readonly scope: string,
  ) {
    this.kind = raw.kind
    this.history = branchHistory(this)
  }

  /** The base as of `baseVersion`, rebuilt once. */
  async baseAt(): Promise<Map<string, StoredEntry>> {
    this.baseEntries ??= new Map((await this.base.snapshot()).entries.map(e => [e.path, e]))
    return this.baseEntries
  }

  /** Paths the branch wrote (whiteouts: removed), as this instance last saw them. */
  ownPaths(): Array<{ path: string; removed: boolean }> {
    return [...this.own].map(([path, o]) => ({ path, removed: o.whiteout }))
  }

  async load(namespace: string, scope: string): Promise<ScopeSnapshot> {
    this.checkScope(scope)
    const [raw, base] = await Promise.all([this.raw.load(namespace, scope), this.baseAt()])
    const own = new Map<string, { raw: number; kind: 'file' | 'dir'; whiteout: boolean }>()
    const entries = new Map(base)
    for (const e of raw.entries) {
      if (!e.path.startsWith('/')) continue
      const whiteout = isWhiteout(e)
      own.set(e.path, { raw: e.version, kind: e.kind, whiteout })
      if (whiteout) entries.delete(e.path)
      else entries.set(e.path, { ...e, version: e.version + this.base.version })
    }
    this.own = own
    return { version: raw.version + this.base.version, entries: [...entries.values()] }
  }

  async commit(namespace: string, scope: string, ops: StoreOp[], record?: CommitRecord): Promise<number> {
    this.checkScope(scope)
    const base = await this.baseAt()
    const rawOps: StoreOp[] = []
    for (const op of ops) {
      const expectedVersion = this.rawExpectation(op, base.get(op.path))
      const below = op.expectedBelow === undefined ? {} : this.rawBelow(op.path, op.expectedBelow, base)
      if (op.op === 'check') rawOps.push({ ...op, expectedVersion: expectedVersion ?? 0, ...below })
      else if (op.op === 'put') rawOps.push({ ...op, expectedVersion, ...below })
      else if (base.has(op.path)) rawOps.push({ ...whiteoutOf(op.path), expectedVersion, ...below })
      else rawOps.push({ ...op, expectedVersion, ...below })
    }
    const rawVersion = await this.raw.commit(namespace, scope, rawOps, record)
    for (const op of rawOps) {
      if (op.op === 'check') continue
      if (op.op === 'delete') this.own.delete(op.path)
      else this.own.set(op.path, { raw: rawVersion, kind: op.kind, whiteout: op.mtime === WHITEOUT })
    }
    return rawVersion + this.base.version
  }

  async deleteScope(namespace: string, scope: string): Promise<void> {
    this.checkScope(scope)
    await this.raw.deleteScope(namespace, scope)
  }

  async listScopes(namespace: string): Promise<string[]> {
    return (await this.raw.listScopes(namespace)).includes(this.scope) ? [this.scope] : []
  }

  /**
   * The raw expectation for an op that expects `op.expectedVersion` of the branch: the raw entry it
   * must hold (one the branch wrote), or none (the path shows the base, checked here: the base at
   * `baseVersion` never changes). Throws ECONFLICT when the expectation already fails.
   */
  private rawExpectation(op: StoreOp, base: StoredEntry | undefined): Exclude<Expectation, null> {
    const expected = op.expectedVersion
    const own = this.own.get(op.path)
    const held = own ? (own.whiteout ? undefined : { kind: own.kind, version: own.raw + this.base.version }) : base
    if (expected !== null && !expectationMet(op, held)) throw conflictError(op.path, expected, held)
    if (!own) return 0
    if (own.whiteout || own.kind === 'file') return own.raw
    return 'dir'
  }

  /** The raw count below `path` for an `expectedBelow` the branch's view meets (else ECONFLICT). */
  private rawBelow(path: string, expected: number, base: Map<string, StoredEntry>): { expectedBelow: number } {
    let raw = 0
    let shown = 0
    for (const [p, o] of this.own) {
      if (!isWithin(p, path) || p === path) continue
      raw++
      if (!o.whiteout) shown++
    }
    for (const p of base.keys()) if (p !== path && isWithin(p, path) && !this.own.has(p)) shown++
    if (shown !== expected) throw subtreeConflictError(path, expected, shown)
    return { expectedBelow: raw }
  }

  private checkScope(scope: string): void {
    if (scope !== this.scope) throw new VfsError('EINVAL', scope, `this branch store serves only the scope ${this.scope}`)
  }
}

/** A whiteout: an empty file entry whose times are WHITEOUT (no real entry has a negative time). */
export const WHITEOUT = -1

function isWhiteout(e: StoredEntry): boolean {
  return e.mtime === WHITEOUT && e.ctime === WHITEOUT && e.data.length === 0
}

function whiteoutOf(path: string): Omit<Extract<StoreOp, { op: 'put' }>, 'expectedVersion'> {
  return { op: 'put', path, kind: 'file', data: new Uint8Array(0), mtime: WHITEOUT, ctime: WHITEOUT }
}

/**
 * A branch's history: its base's up to `baseVersion` (the fork keeps what came before it), then its
 * own, versions shifted. Blobs are looked up in the branch scope, then in the base's.
 */
function branchHistory(b: BranchStore): StoreHistory {
  const offset = b.base.version
  // A detached branch keeps its own copy of what it showed of the base, and none of the base's history.
  const baseHistory = () => (b.base.detached ? undefined : b.base.store.history)
  const shift = (c: StoredChange): StoredChange => ({ ...c, version: c.version + offset })
  const rawHistory = () => b.raw.history!
  return {
    async changes(namespace, scope, query = {}) {
      const out: StoredChange[] = []
      if ((query.after ?? 0) < offset && baseHistory()) {
        const upTo = Math.min(query.upTo ?? offset, offset)
        out.push(...(await baseHistory()!.changes(namespace, b.base.scope, { ...query, upTo })))
      }
      if ((query.upTo ?? Infinity) > offset) {
        const after = query.after === undefined ? undefined : Math.max(0, query.after - offset)
        const upTo = query.upTo === undefined ? undefined : query.upTo - offset
        const limit = query.limit === undefined ? undefined : query.limit - out.length
        if (limit === undefined || limit > 0)
          out.push(...(await rawHistory().changes(namespace, scope, { ...query, after, upTo, limit })).map(shift))
      }
      return out
    },
    async blobs(namespace, scope, hashes) {
      const found = await rawHistory().blobs(namespace, scope, hashes)
      const missing = hashes.filter(h => !found.has(h))
      if (missing.length > 0 && baseHistory())
        for (const [h, d] of await baseHistory()!.blobs(namespace, b.base.scope, missing)) found.set(h, d)
      return found
    },
    async oldest(namespace) {
      // The branch's own changes all come after `offset`, and the base as of `offset` is always
      // there (it is what the branch is made of), so nothing later than offset + 1 is ever oldest.
      const base = await baseHistory()?.oldest(namespace, b.base.scope)
      return base !== undefined && base <= offset ? base : offset + 1
    },
    async prune(namespace, scope, upTo) {
      return rawHistory().prune(namespace, scope, Math.max(0, upTo - offset))
    },
    usage(namespace, scope) {
      return rawHistory().usage(namespace, scope)
    },
  }
}
