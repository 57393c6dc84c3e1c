import { snapshotOf } from 'agent-vfs/internal'
import type { StoredEntry } from 'agent-vfs'
import type { ForkPage, ForkSource } from './fork-source.js'
import { SessionError } from '../errors.js'
import { resolveForkPoint, startFork, type ForkPoint } from './fork.js'
import type { HostParts } from '../host/host-parts.js'
import { SESSION_ID, type ForkRecord } from '../storage.js'
import type { SessionRecord } from '../types.js'

/** What the original's host offers a fork made in another store: who, where, and how much. */
export interface ForkOffer {
  from: string
  owner: string
  profile: string
  title: string
  /** The event the fork is taken at, and the workspace version then. */
  seq: number
  version: number
  /** Bytes of the workspace at `version` (charged to the owner's quota by the fork's host). */
  bytes: number
}

export type { ForkPage, ForkSource }

/** Forks across stores, each side on its own host: `host.remoteForks` (see docs/sessions-history.md). */
export interface RemoteForks {
  /** On the original's host: resolves the point and pins the workspace there (a branch named for the fork, kept from gc). */
  offer(sessionId: string, at: ForkPoint, forkId: string): Promise<ForkOffer>
  /** On the original's host: the pinned workspace's entries after `cursor`, at most `maxBytes` of content (or one entry). */
  page(sessionId: string, forkId: string, cursor: string, maxBytes?: number): Promise<ForkPage>
  /** On the original's host: drops the pin (idempotent). */
  release(sessionId: string, forkId: string): Promise<void>
  /**
   * On the fork's host: creates the fork `id` (the owner's quotas apply), then copies the
   * workspace and the events through `source`. Durable from its first commit: a host that dies
   * half-way leaves a fork the next reader of it (or the object's alarm) completes from where the
   * copy stopped, through the host's `forkSource`.
   */
  adopt(offer: ForkOffer, id: string, source: ForkSource, options?: { title?: string }): Promise<SessionRecord>
}

/** Content bytes per page by default: pages stay far below an RPC message's limit whatever the workspace's size. */
export const FORK_PAGE_BYTES = 1024 * 1024
/** Entries per page at most. */
const FORK_PAGE_ENTRIES = 1000

const pinName = (forkId: string) => `fork-${forkId}`

export function remoteForks(parts: HostParts): RemoteForks {
  const { ctx } = parts
  // The pinned workspace's entries, rebuilt once per fork while this host copies it (a restart rebuilds it again).
  const snapshots = new Map<string, Promise<StoredEntry[]>>()
  const entriesOf = (sessionId: string, forkId: string): Promise<StoredEntry[]> => {
    let entries = snapshots.get(forkId)
    if (!entries) {
      entries = (async () => {
        const pin = await (await ctx.workspaces.base(sessionId)).openBranch(pinName(forkId)).catch(() => {
          throw new SessionError('not-found', `no fork ${forkId} is being copied from session ${sessionId}`)
        })
        const snapshot = await snapshotOf(pin, pin.baseVersion)
        return snapshot.entries.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))
      })()
      entries.catch(() => snapshots.get(forkId) === entries && snapshots.delete(forkId))
      snapshots.set(forkId, entries)
    }
    return entries
  }
  return {
    async offer(sessionId, at, forkId) {
      if (!SESSION_ID.test(forkId)) throw new SessionError('invalid', 'a fork id is a session id')
      const { record } = await parts.open(sessionId)
      const base = await ctx.workspaces.base(sessionId)
      const { seq, version } = await resolveForkPoint(ctx, sessionId, base, at)
      await base.branch({ name: pinName(forkId), at: version })
      const bytes = (await base.at(version)).usage().bytes
      return { from: sessionId, owner: record.owner, profile: record.profile, title: record.title, seq, version, bytes }
    },

    async page(sessionId, forkId, cursor, maxBytes = FORK_PAGE_BYTES) {
      const all = await entriesOf(sessionId, forkId)
      let i = cursor === '' ? 0 : all.findIndex(e => e.path > cursor)
      if (i < 0) i = all.length
      const entries: StoredEntry[] = []
      let bytes = 0
      for (; i < all.length && entries.length < FORK_PAGE_ENTRIES; i++) {
        if (entries.length > 0 && bytes + all[i].data.byteLength > maxBytes) break
        entries.push(all[i])
        bytes += all[i].data.byteLength
      }
      return { entries, ...(i < all.length ? { next: entries[entries.length - 1].path } : {}) }
    },

    async release(sessionId, forkId) {
      snapshots.delete(forkId)
      const pin = await (await ctx.workspaces.base(sessionId)).openBranch(pinName(forkId)).catch(() => undefined)
      await pin?.discard()
    },

    async adopt(offer, id, source, options = {}) {
      if (!SESSION_ID.test(id)) throw new SessionError('invalid', 'a fork id is a session id')
      if (await ctx.meta(id)) throw new SessionError('conflict', `Session ${id} exists already`)
      const fork: ForkRecord = { from: offer.from, branch: pinName(id), version: offer.version, seq: offer.seq, remote: true }
      return startFork(ctx, id, offer, options.title, offer.bytes, fork, source)
    },
  }
}
