import { localSignals, type SessionSignals } from './signals.js'

/** A connection that can LISTEN: `pg.Client` (connected), or PGlite (`listen` method). */
export interface ListeningClient {
  query(text: string, params?: unknown[]): Promise<unknown>
  on?(event: 'notification', listener: (message: { channel: string; payload?: string; processId?: number }) => void): unknown
  listen?(channel: string, listener: (payload: string) => void): Promise<() => Promise<void>>
  /** The connection's backend pid (`pg.Client` once connected): notifications it sent itself are known by it. */
  processID?: number | null
}

/**
 * Signals across processes through Postgres LISTEN/NOTIFY on one channel: the payload is the
 * session id. `listen` must be a dedicated connection (LISTEN holds it). The NOTIFYs go through
 * that same connection unless `notify` is given: never behind the transactions queued for the
 * store's pool. One NOTIFY query is in flight at a time; the sessions published meanwhile leave
 * together in the next one (each still sent after its publication, so a listener that reads after
 * hearing it finds the change). A publication reaches this process's own listeners at once, with
 * its news; the notifications this connection sent come back from Postgres and are dropped (a
 * `pg.Client`'s own backend pid), so a host's own commits cost its tails no read. PGlite (one
 * database per process, no pid) delivers them again, without news.
 */
export async function postgresSignals(options: {
  listen: ListeningClient
  /** Where the NOTIFYs go instead (a pool, a client). Default: the listening connection. */
  notify?: { query(text: string, params?: unknown[]): Promise<unknown> }
  channel?: string
}): Promise<SessionSignals> {
  const channel = options.channel ?? 'agent_vfs_sessions'
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(channel)) throw new TypeError('channel must be a lower-case SQL identifier')
  // This process's listeners; a notification is delivered to them like a local publication.
  const listeners = localSignals()
  const { listen } = options
  // Our own notifications are recognisable only when they come back on the connection that sent them.
  const ownPid = () => (options.notify === undefined && typeof listen.processID === 'number' ? listen.processID : undefined)
  let unlisten: (() => Promise<void>) | undefined
  if (typeof listen.listen === 'function') {
    unlisten = await listen.listen(channel, payload => payload && listeners.publish(payload))
  } else if (typeof listen.on === 'function') {
    listen.on('notification', m => {
      if (m.channel !== channel || !m.payload) return
      const own = ownPid()
      if (own !== undefined && m.processId === own) return
      listeners.publish(m.payload)
    })
    await listen.query(`LISTEN ${channel}`)
  } else {
    throw new TypeError('listen must be a pg.Client or a PGlite instance')
  }
  const notifier = options.notify ?? listen
  const queued = new Set<string>()
  let sending = false
  const send = () => {
    if (sending || queued.size === 0) return
    const ids = [...queued]
    queued.clear()
    sending = true
    notifier
      .query('SELECT pg_notify($1, id) FROM unnest($2::text[]) AS id', [channel, ids])
      .catch(() => {
        // a lost notification costs one poll interval, nothing more
      })
      .finally(() => {
        sending = false
        send()
      })
  }
  return {
    publish(sessionId, news) {
      // The pid check drops these when they come back: deliver them here, news and all.
      if (ownPid() !== undefined) listeners.publish(sessionId, news)
      queued.add(sessionId)
      send()
    },
    subscribe: (sessionId, listener) => listeners.subscribe(sessionId, listener),
    async close() {
      if (unlisten) await unlisten()
      else await listen.query(`UNLISTEN ${channel}`).catch(() => undefined)
    },
  }
}
