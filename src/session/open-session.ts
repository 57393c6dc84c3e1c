import type { HostContext, SessionMeta } from './context.js'
import { sessionNotFound as notFound } from './errors.js'
import { finishFork } from './fork/fork-finish.js'
import { idOf, type OpenedSession, type SessionRef } from './session-ref.js'

/**
 * The one place a session is opened: its meta, checked against `owner` when given (another owner's
 * session is "not found", like a missing one); a fork its host did not finish (killed half-way) is
 * finished by whoever reads it next.
 */
export async function openMeta(ctx: HostContext, sessionId: string, owner?: string): Promise<SessionMeta> {
  const meta = await ctx.meta(sessionId)
  if (!meta || (owner !== undefined && meta.record.owner !== owner)) throw notFound(sessionId)
  if (meta.fork && !meta.fork.done) return { ...meta, record: (await finishFork(ctx, sessionId, meta.fork)) ?? meta.record }
  return meta
}

/** The sessions one host opened and not yet spent, with the meta each read. */
export class OpenedSessions {
  private readonly meta = new WeakMap<OpenedSession, SessionMeta>()

  constructor(private readonly ctx: HostContext) {}

  /** A session value for `meta`, spent by its first use. */
  opened(meta: SessionMeta): OpenedSession {
    const session = Object.freeze({ id: meta.record.id, record: meta.record })
    this.meta.set(session, meta)
    return session
  }

  /** What an unspent session of this host read (then spent), without reading anything: undefined for an id. */
  take(ref: SessionRef): SessionMeta | undefined {
    const known = typeof ref === 'object' && ref !== null ? this.meta.get(ref) : undefined
    if (known) this.meta.delete(ref as OpenedSession)
    return known
  }

  /** The meta of `ref`: what an unspent session of this host read (then spent), else read now. */
  async load(ref: SessionRef, owner?: string): Promise<SessionMeta> {
    const known = this.take(ref)
    if (!known) return openMeta(this.ctx, idOf(ref), owner)
    if (owner !== undefined && known.record.owner !== owner) throw notFound(known.record.id)
    return known
  }
}
