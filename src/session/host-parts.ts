import type { RunVfs } from 'agent-vfs'
import type { HostContext } from './context.js'
import type { SessionDriver } from './driver.js'
import { SessionError } from './errors.js'
import type { Refusal } from './state.js'
import type { SessionActor, SessionRecord } from './types.js'

/**
 * What the host's method groups (lifecycle, conversation, reading, files, maintenance) share: the
 * context, the driver that runs executions, and the ways into one session.
 */
export class HostParts {
  constructor(
    readonly ctx: HostContext,
    readonly driver: SessionDriver,
  ) {}

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

  /** The session's record and workspace, fresh from the store (not found: throws). */
  async open(sessionId: string): Promise<{ record: SessionRecord; ws: RunVfs }> {
    const meta = await this.ctx.require(sessionId)
    const ws = await this.workspace(sessionId, meta.record.owner)
    // Another process may have written since this instance loaded.
    if (!this.driver.active.has(sessionId)) await ws.refresh()
    return { record: meta.record, ws }
  }

  /** The session's record; throws `closed` for a closed session. */
  async requireOpen(sessionId: string): Promise<SessionRecord> {
    const meta = await this.ctx.require(sessionId)
    if (meta.record.status === 'closed') throw new SessionError('closed', `Session ${sessionId} is closed`)
    return meta.record
  }
}

/** Throws the refusal of the state machine, if any, with `message`. */
export function refuse(refusal: Refusal | undefined, message: string): void {
  if (refusal) throw new SessionError(refusal.code, refusal.code === 'closed' ? `Session is closed` : message)
}
