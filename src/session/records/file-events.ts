import type { FileChange, Vfs } from 'agent-vfs'
import { sessionActorOf } from './actors.js'
import type { ChangedFile, SessionActor, SessionEventBody } from '../types.js'

/**
 * Turns the commits of a session's workspace into `files-changed` events of its log, so a client's
 * file tree and preview follow every write (the agent's, an upload, another client's) without
 * polling, and a reconnect from `after=` misses none that were logged.
 *
 * Each commit's notice (`onChange`) says what it did to each path and who did it (the actor tag
 * the write carried: see `Workspaces.viewAs`); the event is appended while the notice is handled,
 * so it follows its commit and precedes whatever the writer logs after the write. Only this host's
 * own commits are turned into events: another host's commits reach this one as `external` changes,
 * and that host logs them.
 */
export class FileEvents {
  /** Sessions whose commits are not logged (seeding before `session-created`). */
  private readonly muted = new Set<string>()
  /** Per session: appends not settled yet (a purge waits for them, so none lands after it). */
  private readonly pending = new Map<string, Set<Promise<unknown>>>()

  constructor(private readonly emit: (sessionId: string, body: SessionEventBody) => Promise<unknown>) {}

  /** Follows one open workspace of `sessionId`; returns the unsubscribe. */
  watch(sessionId: string, base: Vfs): () => void {
    return base.onChange(change => {
      if (change.type !== 'commit' || this.muted.has(sessionId)) return
      for (const event of eventsOf(change.version, change.changes)) {
        // A failed append loses the notice, not the write: the workspace's history still holds it.
        const append = this.emit(sessionId, event).catch(() => undefined)
        let set = this.pending.get(sessionId)
        if (!set) this.pending.set(sessionId, (set = new Set()))
        set.add(append)
        void append.then(() => {
          set.delete(append)
          if (set.size === 0 && this.pending.get(sessionId) === set) this.pending.delete(sessionId)
        })
      }
    })
  }

  /** Resolves once every notice of the session's commits so far is appended (or failed). */
  async settled(sessionId: string): Promise<void> {
    await Promise.all(this.pending.get(sessionId) ?? [])
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
}

/** A commit's `files-changed` events: one per author, files only (directories are implied by their files). */
export function eventsOf(version: number, changes: readonly FileChange[]): SessionEventBody[] {
  const groups = new Map<string, { by: SessionActor; changes: ChangedFile[] }>()
  for (const c of changes) {
    if (c.kind !== 'file') continue
    const by = sessionActorOf(c.actor) ?? { kind: 'host' as const }
    const key = by.kind === 'execution' ? `e:${by.executionId}` : by.kind === 'mcp' ? `m:${by.tool ?? ''}` : by.kind
    let group = groups.get(key)
    if (!group) groups.set(key, (group = { by, changes: [] }))
    group.changes.push({
      path: c.path,
      op: c.op === 'delete' ? 'deleted' : c.versionBefore === 0 ? 'added' : 'changed',
      version: c.versionAfter,
      size: c.op === 'delete' ? 0 : c.size,
      mimeType: c.mediaType ?? 'application/octet-stream',
    })
  }
  return [...groups.values()].map(g => ({ type: 'files-changed', version, by: g.by, changes: g.changes }))
}
