import { RUN_JS_ARCHIVE_NAME, RUN_ROOTS, WRITABLE_ROOTS } from 'agent-vfs'
import type { VfsStore } from 'agent-vfs'
import { openVfs } from 'agent-vfs'
import { restrict, withActor, type RunRoot, type RunVfs } from 'agent-vfs'
import type { SessionActor } from '../types.js'
import type { Vfs, VersionedVfs, VfsBranch } from 'agent-vfs'
import { proposalView } from 'agent-vfs/agent'
import type { FileEvents } from './file-events.js'
import { scopeNames } from '../storage.js'

/** A session's workspace maps the run roots onto themselves: `/context` is `/context` in the scope. */
export const SESSION_ROOTS: Record<string, Required<RunRoot>> = Object.fromEntries(
  RUN_ROOTS.map(name => [name, { writable: (WRITABLE_ROOTS as readonly string[]).includes(name), target: `/${name}` }]),
)

/** A session's run view of a workspace: every root; `/context` and `/skills` read-only to the agent, seedable by the host. */
export const runView = (vfs: Vfs): RunVfs =>
  restrict(vfs, { roots: RUN_ROOTS, readOnly: RUN_ROOTS.filter(r => !SESSION_ROOTS[r].writable).map(r => `/${r}`) })

/** Roots a person may upload into and delete from through the host (the runtime owns `/state`). */
export const UPLOAD_ROOTS = RUN_ROOTS.filter(r => r !== 'state').map(r => `/${r}`)

/** The open workspaces of one host: one instance per session, opened on first use. */
export class Workspaces {
  private readonly open = new Map<string, Promise<{ base: VersionedVfs; view: RunVfs; unwatch?: () => void }>>()

  private readonly quotas = new Map<string, { maxStoredBytes?: number }>()

  constructor(
    private readonly store: VfsStore,
    private readonly namespace: string,
    /** Turns each open workspace's commits into `files-changed` events. */
    private readonly fileEvents?: FileEvents,
    /** Where a forked session's workspace lives: a branch of the original's. */
    private readonly forkOf?: (sessionId: string) => Promise<{ from: string; branch: string; baseScope?: string } | undefined>,
    /** Run once per open, before the instance is handed out: logs the notices a dead host lost (file-catch-up.ts). */
    private readonly catchUp?: (sessionId: string, base: VersionedVfs) => Promise<unknown>,
  ) {}

  /** The session's run view (every root; `/context` and `/skills` read-only to the agent, seedable by the host). */
  async view(sessionId: string, maxBytes?: number): Promise<RunVfs> {
    return (await this.get(sessionId, maxBytes)).view
  }

  /** The run view whose writes carry `actor` in the workspace's history (an execution's, a person's). */
  async viewAs(sessionId: string, actor: SessionActor, maxBytes?: number): Promise<RunVfs> {
    return runView(withActor((await this.get(sessionId, maxBytes)).base, actor))
  }

  /** The run view of an execution in `propose` mode: its files are `branch`'s, `/state` the workspace's; both tagged `actor`. */
  async proposalViewAs(sessionId: string, branch: VfsBranch, actor: SessionActor): Promise<RunVfs> {
    const base = (await this.get(sessionId)).base
    return runView(proposalView(withActor(base, actor), withActor(branch, actor)))
  }

  /** The whole scope, for the host's own maintenance. */
  async base(sessionId: string): Promise<VersionedVfs> {
    return (await this.get(sessionId)).base
  }

  private get(sessionId: string, maxBytes?: number): Promise<{ base: VersionedVfs; view: RunVfs; unwatch?: () => void }> {
    let entry = this.open.get(sessionId)
    // The cap follows the owner's other sessions: the workspace reads this object at every write,
    // so an instance opened when the owner held more (or less) elsewhere does not keep that cap.
    let quota = this.quotas.get(sessionId)
    if (!quota) this.quotas.set(sessionId, (quota = {}))
    // The owner's bytes are files and history together (docs/limits.md): a write that would keep more is EQUOTA.
    if (maxBytes !== undefined) quota.maxStoredBytes = maxBytes
    if (!entry) {
      entry = this.openBase(sessionId, quota).then(async base => {
        // Before the watch: what this instance commits is noticed by the watch, never twice; and after
        // the appends an instance evicted before it still had in flight.
        await this.fileEvents?.settled(sessionId)
        await this.catchUp?.(sessionId, base).catch(() => undefined)
        return { base, view: runView(base), ...(this.fileEvents ? { unwatch: this.fileEvents.watch(sessionId, base) } : {}) }
      })
      entry.catch(() => this.open.get(sessionId) === entry && this.open.delete(sessionId))
      this.open.set(sessionId, entry)
    }
    return entry
  }

  /** A session's own scope, or (a fork) the branch of the original's workspace it was given. */
  private async openBase(sessionId: string, quota: { maxStoredBytes?: number }): Promise<VersionedVfs> {
    const fork = await this.forkOf?.(sessionId)
    if (fork) return this.forkBranch(fork)
    return openVfs({ store: this.store, namespace: this.namespace, scope: scopeNames.workspace(sessionId), quota })
  }

  /**
   * A fork's branch: through the original's workspace, or (detached once its original was deleted,
   * see fork-detach.ts) straight from the scope it was branched from, which may be gone.
   */
  private async forkBranch(fork: { from: string; branch: string; baseScope?: string }): Promise<VfsBranch> {
    if (fork.baseScope === undefined) return (await this.base(fork.from)).openBranch(fork.branch)
    const base = await openVfs({ store: this.store, namespace: this.namespace, scope: fork.baseScope })
    return base.openBranch(fork.branch)
  }

  /** Whether this host holds the session's workspace in memory now. */
  isOpen(sessionId: string): boolean {
    return this.open.has(sessionId)
  }

  /** Drops the cached instance (after writes elsewhere, or to free memory). */
  async evict(sessionId: string): Promise<void> {
    const entry = this.open.get(sessionId)
    this.quotas.delete(sessionId)
    if (!entry) return
    this.open.delete(sessionId)
    const opened = await entry.catch(() => undefined)
    opened?.unwatch?.()
    await opened?.base.close().catch(() => undefined)
  }

  /** Deletes the workspace's data (a fork's: its branch of the original's workspace). */
  async remove(sessionId: string): Promise<void> {
    const fork = await this.forkOf?.(sessionId)
    await this.evict(sessionId)
    if (fork) {
      const branch = await this.forkBranch(fork).catch(() => undefined)
      await branch?.discard()
    }
    await this.store.deleteScope(this.namespace, scopeNames.workspace(sessionId))
  }

  async closeAll(): Promise<void> {
    await Promise.all([...this.open.keys()].map(id => this.evict(id)))
  }
}

/**
 * Deletes run_js archives (`run-NNN.*`, `result-NNN.json` in any root's `.run_js` folder) except
 * the newest `keep` numbers of each folder. Resolves to the count deleted.
 */
export async function pruneRunArchives(base: Vfs, keep: number): Promise<number> {
  let deleted = 0
  for (const root of RUN_ROOTS) {
    const dir = `/${root}/${RUN_JS_ARCHIVE_NAME}`
    if (!(await base.exists(dir))) continue
    const files = await base.readdir(dir)
    const numberOf = (name: string) => Number(/^(?:run|result)-(\d+)\./.exec(name)?.[1] ?? NaN)
    const numbers = [...new Set(files.map(numberOf).filter(n => Number.isFinite(n)))].sort((a, b) => b - a)
    const kept = new Set(numbers.slice(0, Math.max(0, keep)))
    const doomed = files.filter(f => Number.isFinite(numberOf(f)) && !kept.has(numberOf(f)))
    await Promise.all(doomed.map(f => base.deleteFile(`${dir}/${f}`)))
    deleted += doomed.length
  }
  return deleted
}
