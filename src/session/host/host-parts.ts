import type { RunVfs } from 'agent-vfs'
import type { HostContext, SessionMeta } from '../context.js'
import type { SessionDriver } from '../run/driver.js'
import { SessionError } from '../errors.js'
import { OpenedSessions } from '../open-session.js'
import { idOf, type OpenedSession, type SessionRef } from '../session-ref.js'
import type { Refusal } from '../state.js'
import type { SessionActor, SessionRecord } from '../types.js'

/**
 * What the host's method groups (lifecycle, conversation, reading, files, maintenance) share: the
 * context, the driver that runs executions, and the ways into one session. Each takes a
 * {@link SessionRef}: a session the host opened for the request is used as read, an id is read now.
 */
export class HostParts {
  private readonly sessions: OpenedSessions

  constructor(
    readonly ctx: HostContext,
    readonly driver: SessionDriver,
  ) {
    this.sessions = new OpenedSessions(ctx)
  }

  /** A session value for what `meta` holds, for the host's methods to take (see {@link OpenedSession}). */
  opened(meta: SessionMeta): OpenedSession {
    return this.sessions.opened(meta)
  }

  /** The session's meta: as the request opened it, or read now (checked against `owner` when given; not found: throws). */
  load(ref: SessionRef, owner?: string): Promise<SessionMeta> {
    return this.sessions.load(ref, owner)
  }

  /** The meta an unspent opened session read (then spent), reading nothing: undefined for an id. */
  taken(ref: SessionRef): SessionMeta | undefined {
    return this.sessions.take(ref)
  }

  /** The session's workspace, limited to what the owner's byte quota leaves it. */
  async workspace(sessionId: string, owner: string): Promise<RunVfs> {
    const max = this.ctx.settings.quota.maxBytes
    if (max === undefined) return this.ctx.workspaces.view(sessionId)
    return this.ctx.workspaces.view(sessionId, Math.max(0, max - (await this.ctx.index.othersBytes(owner, sessionId))))
  }

  /** The session's workspace as {@link workspace} gives it, its writes tagged `actor` in the history. */
  async workspaceAs(sessionId: string, owner: string, actor: SessionActor): Promise<RunVfs> {
    const max = this.ctx.settings.quota.maxBytes
    const left = max === undefined ? undefined : Math.max(0, max - (await this.ctx.index.othersBytes(owner, sessionId)))
    return this.ctx.workspaces.viewAs(sessionId, actor, left)
  }

  /** The session's record and workspace (its writes tagged `actor` if given), fresh from the store (not found: throws). */
  async open(ref: SessionRef, actor?: SessionActor): Promise<{ record: SessionRecord; ws: RunVfs }> {
    const meta = await this.load(ref)
    const sessionId = idOf(ref)
    const owner = meta.record.owner
    const ws = actor ? await this.workspaceAs(sessionId, owner, actor) : await this.workspace(sessionId, owner)
    // Another process may have written since this instance loaded.
    if (!this.driver.active.has(sessionId)) await ws.refresh()
    return { record: meta.record, ws }
  }

  /** The session's meta; throws `closed` for a closed session. */
  async loadOpen(ref: SessionRef): Promise<SessionMeta> {
    const meta = await this.load(ref)
    if (meta.record.status === 'closed') throw new SessionError('closed', `Session ${idOf(ref)} is closed`)
    return meta
  }

  /** The session's record; throws `closed` for a closed session. */
  async requireOpen(ref: SessionRef): Promise<SessionRecord> {
    return (await this.loadOpen(ref)).record
  }
}

/** Throws the refusal of the state machine, if any, with `message`. */
export function refuse(refusal: Refusal | undefined, message: string): void {
  if (refusal) throw new SessionError(refusal.code, refusal.code === 'closed' ? `Session is closed` : message)
}
