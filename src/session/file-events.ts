import type { Vfs, VfsChange } from 'agent-vfs'
import type { ChangeActor, FileChange, SessionEventBody } from './types.js'

/**
 * Turns the commits of a session's workspace into `files-changed` events of its log, so a client's
 * file tree and preview follow every write (the agent's, an upload, another client's) without
 * polling, and a reconnect from `after=` misses none that were logged.
 *
 * Only this host's own commits are turned into events: another host's commits reach this one as
 * `external` changes, and that host logs them. Who made a change is known from the write's door:
 * the host marks the paths it writes for a person (uploads, deletes) before it issues them; every
 * other commit belongs to the execution running then (or to the host, e.g. seeding, when none runs).
 */
export class FileEvents {
  /** Per session: paths written for a person whose commit has not landed yet. */
  private readonly marks = new Map<string, Map<string, ChangeActor>>()
  /** Per session: the execution running on this host. */
  private readonly running = new Map<string, string>()
  /** Sessions whose commits are not logged (seeding before `session-created`). */
  private readonly muted = new Set<string>()

  constructor(private readonly emit: (sessionId: string, body: SessionEventBody) => Promise<unknown>) {}

  /**
   * Follows one open workspace of `sessionId`; returns the unsubscribe. The files it holds now are
   * what the first commit's changes are compared with (added or changed).
   */
  async watch(sessionId: string, base: Vfs): Promise<() => void> {
    const known = new Map<string, string>()
    for (const p of await base.glob('/**')) known.set(p, (await base.stat(p)).mimeType)
    // Commits are described one after another, so their events keep the commits' order.
    let described = Promise.resolve()
    return base.onChange(change => {
      if (change.type !== 'commit') return
      const by = this.actorsOf(sessionId, change.paths)
      const logged = !this.muted.has(sessionId)
      described = described.then(() => this.describe(sessionId, base, known, change, by, logged)).catch(() => undefined)
    })
  }

  /** The paths about to be written for a person: their commit is the API's, not the execution's. */
  markApi(sessionId: string, paths: string[]): void {
    let marks = this.marks.get(sessionId)
    if (!marks) this.marks.set(sessionId, (marks = new Map()))
    for (const p of paths) marks.set(p, { kind: 'api' })
  }

  /** Drops the marks of a write that failed (nothing was committed for them). */
  unmark(sessionId: string, paths: string[]): void {
    const marks = this.marks.get(sessionId)
    for (const p of paths) marks?.delete(p)
    if (marks?.size === 0) this.marks.delete(sessionId)
  }

  executing(sessionId: string, executionId: string | undefined): void {
    if (executionId === undefined) this.running.delete(sessionId)
    else this.running.set(sessionId, executionId)
  }

  /** Runs `work` without logging the session's commits (the seed of a session not created yet). */
  async quietly<T>(sessionId: string, work: () => Promise<T>): Promise<T> {
    this.muted.add(sessionId)
    try {
      return await work()
    } finally {
      this.muted.delete(sessionId)
    }
  }

  forget(sessionId: string): void {
    this.marks.delete(sessionId)
    this.running.delete(sessionId)
  }

  /** Who wrote each path of a commit, taken when the commit is heard (a mark is used once). */
  private actorsOf(sessionId: string, paths: string[]): ChangeActor[] {
    const marks = this.marks.get(sessionId)
    const running = this.running.get(sessionId)
    const fallback: ChangeActor = running !== undefined ? { kind: 'execution', executionId: running } : { kind: 'host' }
    const by = paths.map(p => marks?.get(p) ?? fallback)
    for (const p of paths) marks?.delete(p)
    if (marks?.size === 0) this.marks.delete(sessionId)
    return by
  }

  private async describe(
    sessionId: string,
    base: Vfs,
    known: Map<string, string>,
    change: CommitChange,
    by: ChangeActor[],
    logged: boolean,
  ): Promise<void> {
    const groups = new Map<string, { by: ChangeActor; changes: FileChange[] }>()
    for (const [i, path] of change.paths.entries()) {
      const actor = by[i]
      const key = actor.kind === 'execution' ? `e:${actor.executionId}` : actor.kind
      let group = groups.get(key)
      if (!group) groups.set(key, (group = { by: actor, changes: [] }))
      group.changes.push(...(await changesAt(base, known, path, change.version)))
    }
    if (!logged) return
    for (const { by: actor, changes } of groups.values()) {
      // A failed append loses the notice, not the write: the workspace (and its history) still hold it.
      // Appended, not awaited: the log numbers events in the order they are appended, and the next
      // commit's description need not wait for this one to be durable.
      if (changes.length > 0)
        void this.emit(sessionId, { type: 'files-changed', version: change.version, by: actor, changes }).catch(() => undefined)
    }
  }
}

type CommitChange = Extract<VfsChange, { type: 'commit' }>

/** What a committed path became: a file added or changed, or deleted (a deleted directory: every file known under it). */
async function changesAt(base: Vfs, known: Map<string, string>, path: string, version: number): Promise<FileChange[]> {
  const now = await base.stat(path).catch(() => undefined)
  if (now?.type === 'file') {
    const op = known.has(path) ? 'changed' : 'added'
    known.set(path, now.mimeType)
    return [{ path, op, version, size: now.size, mimeType: now.mimeType }]
  }
  if (now?.type === 'directory') return []
  const gone = known.has(path) ? [path] : [...known.keys()].filter(p => p.startsWith(`${path}/`))
  const out = gone.map(p => ({ path: p, op: 'deleted' as const, version, size: 0, mimeType: known.get(p)! }))
  for (const p of gone) known.delete(p)
  return out
}
