import { localSignals, type SessionSignals } from './signals.js'

/** A connection that can LISTEN: `pg.Client` (connected), or PGlite (`listen` method). */
export interface ListeningClient {
  query(text: string, params?: unknown[]): Promise<unknown>
  on?(event: 'notification', listener: (message: { channel: string; payload?: string }) => void): unknown
  listen?(channel: string, listener: (payload: string) => void): Promise<() => Promise<void>>
}

/**
 * Signals across processes through Postgres LISTEN/NOTIFY on one channel: the payload is the
 * session id. `client` must be a dedicated connection (LISTEN holds it); `notify` may be a pool.
 */
export async function postgresSignals(options: {
  listen: ListeningClient
  notify?: { query(text: string, params?: unknown[]): Promise<unknown> }
  channel?: string
}): Promise<SessionSignals> {
  const channel = options.channel ?? 'agent_vfs_sessions'
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(channel)) throw new TypeError('channel must be a lower-case SQL identifier')
  // This process's listeners; a notification is delivered to them like a local publication.
  const listeners = localSignals()
  const deliver = (sessionId: string | undefined) => {
    if (sessionId) listeners.publish(sessionId)
  }
  let unlisten: (() => Promise<void>) | undefined
  if (typeof options.listen.listen === 'function') {
    unlisten = await options.listen.listen(channel, payload => deliver(payload))
  } else if (typeof options.listen.on === 'function') {
    options.listen.on('notification', m => {
      if (m.channel === channel) deliver(m.payload)
    })
    await options.listen.query(`LISTEN ${channel}`)
  } else {
    throw new TypeError('listen must be a pg.Client or a PGlite instance')
  }
  const notifier = options.notify ?? options.listen
  return {
    publish(sessionId) {
      notifier.query('SELECT pg_notify($1, $2)', [channel, sessionId]).catch(() => {
        // a lost notification costs one poll interval, nothing more
      })
    },
    subscribe: (sessionId, listener) => listeners.subscribe(sessionId, listener),
    async close() {
      if (unlisten) await unlisten()
      else await options.listen.query(`UNLISTEN ${channel}`).catch(() => undefined)
    },
  }
}
