import { VfsError } from 'agent-vfs'
import { SessionError, sumUsage, zeroUsage, type OwnerIndex, type SessionRecord, type UsageTotals } from 'agent-vfs/session'

/**
 * The owners' index of the edge in D1 (table `sessions`, worker-edge/migrations/0002 to 0004, D1_SESSION_SCHEMA):
 * one row per session, written by the session's Durable Object and read by the Worker to list an
 * owner's sessions and to route a request only to a session its caller owns. A quota check and its
 * write are one D1 batch (a transaction): a guard row that violates a CHECK makes the whole batch
 * fail, so two objects creating sessions for one owner at once cannot both pass the limit.
 */
export function d1OwnerIndex(db: D1Database): OwnerIndex {
  /** Runs a batch; the guard's CHECK failure becomes a quota refusal with `message`. */
  const batch = async (statements: D1PreparedStatement[], message: () => string, code: 'quota' | 'too-many-running' = 'quota') => {
    try {
      await db.batch(statements)
    } catch (error) {
      if (String((error as Error)?.message).includes('session_quota_exceeded')) throw new SessionError(code, message())
      throw missingTable(error)
    }
  }
  return {
    async add(record, quota) {
      const guard =
        quota.maxSessions === undefined
          ? []
          : [
              db
                .prepare('INSERT INTO session_quota_guard (ok) SELECT 0 WHERE (SELECT COUNT(*) FROM sessions WHERE owner = ?1) >= ?2')
                .bind(record.owner, quota.maxSessions),
            ]
      await batch(
        [
          ...guard,
          db
            .prepare(
              `INSERT INTO sessions (id, owner, n, created_at, updated_at, status, title, bytes, record)
             VALUES (?1, ?2, (SELECT COALESCE(MAX(n), 0) + 1 FROM sessions WHERE owner = ?2), ?3, ?4, ?5, ?6, 0, ?7)`,
            )
            .bind(record.id, record.owner, record.createdAt, record.updatedAt, record.status, record.title, JSON.stringify(record)),
        ],
        () => `Owner already has ${quota.maxSessions} sessions; the quota is ${quota.maxSessions}`,
      )
    },

    async remove(owner, sessionId) {
      await db
        .prepare('DELETE FROM sessions WHERE id = ?1 AND owner = ?2')
        .bind(sessionId, owner)
        .run()
        .catch(e => Promise.reject(missingTable(e)))
    },

    async list(owner, { cursor, limit }) {
      const below = cursor === undefined ? Number.MAX_SAFE_INTEGER : Number(cursor)
      if (!Number.isSafeInteger(below)) throw new SessionError('invalid', 'cursor must be the `next` of a previous page')
      // One row more than the page: whether there is a next page.
      const { results } = await db
        .prepare('SELECT n, record FROM sessions WHERE owner = ?1 AND n < ?2 ORDER BY n DESC LIMIT ?3')
        .bind(owner, below, limit + 1)
        .all<{ n: number; record: string }>()
        .catch(e => Promise.reject(missingTable(e)))
      const page = results.slice(0, limit)
      const items = page.map(r => JSON.parse(r.record) as SessionRecord)
      return { items, ...(results.length > limit ? { next: String(page[page.length - 1].n) } : {}) }
    },

    async othersBytes(owner, sessionId) {
      const row = await db
        .prepare('SELECT COALESCE(SUM(bytes), 0) AS bytes FROM sessions WHERE owner = ?1 AND id != ?2')
        .bind(owner, sessionId)
        .first<{ bytes: number }>()
      return row?.bytes ?? 0
    },

    async setBytes(owner, sessionId, bytes, maxBytes) {
      const guard =
        maxBytes === undefined
          ? []
          : [
              db
                .prepare(
                  'INSERT INTO session_quota_guard (ok) SELECT 0 WHERE (SELECT COALESCE(SUM(bytes), 0) FROM sessions WHERE owner = ?1) > ?2',
                )
                .bind(owner, maxBytes),
            ]
      await batch(
        [db.prepare('UPDATE sessions SET bytes = ?1 WHERE id = ?2 AND owner = ?3').bind(bytes, sessionId, owner), ...guard],
        () => `the files need more than ${maxBytes} bytes for this owner; the quota is ${maxBytes}`,
      )
    },

    async setRunning(owner, sessionId, running, maxRunning) {
      // The guard counts the other running sessions in the same transaction as the update.
      const guard =
        running && maxRunning !== undefined
          ? [
              db
                .prepare(
                  'INSERT INTO session_quota_guard (ok) SELECT 0 WHERE (SELECT COUNT(*) FROM sessions WHERE owner = ?1 AND running = 1 AND id != ?2) >= ?3',
                )
                .bind(owner, sessionId, maxRunning),
            ]
          : []
      await batch(
        [...guard, db.prepare('UPDATE sessions SET running = ?1 WHERE id = ?2 AND owner = ?3').bind(running ? 1 : 0, sessionId, owner)],
        () => `this owner already runs ${maxRunning} executions; the quota is ${maxRunning} at once`,
        'too-many-running',
      )
    },

    async setUsage(owner, sessionId, usage) {
      await db.prepare('UPDATE sessions SET usage = ?1 WHERE id = ?2 AND owner = ?3').bind(JSON.stringify(usage), sessionId, owner).run()
    },

    // Live sessions only: D1 keeps no figures of deleted sessions (the store's index does).
    async usage(owner, except) {
      const { results } = await db
        .prepare('SELECT id, usage FROM sessions WHERE owner = ?1 AND usage IS NOT NULL')
        .bind(owner)
        .all<{ id: string; usage: string }>()
      const sessions = results.map(r => ({ id: r.id, total: JSON.parse(r.usage) as UsageTotals }))
      const total = sessions.filter(s => s.id !== except).reduce((sum, s) => sumUsage(sum, s.total), zeroUsage())
      return { total, sessions }
    },

    async changed(record) {
      // Never an older record over a newer one (two updates may finish out of order).
      await db
        .prepare(
          'UPDATE sessions SET record = ?1, status = ?2, title = ?3, updated_at = ?4 WHERE id = ?5 AND owner = ?6 AND updated_at <= ?4',
        )
        .bind(JSON.stringify(record), record.status, record.title, record.updatedAt, record.id, record.owner)
        .run()
    },
  }
}

/** The owner of a session by its D1 row, or undefined when there is none. */
export async function sessionOwner(db: D1Database, sessionId: string): Promise<string | undefined> {
  const row = await db
    .prepare('SELECT owner FROM sessions WHERE id = ?1')
    .bind(sessionId)
    .first<{ owner: string }>()
    .catch(e => Promise.reject(missingTable(e)))
  return row?.owner
}

/** What to do when the index was never migrated: its migration ships in the package. */
const SESSION_INDEX_MISSING =
  'the D1 session index is missing (no `sessions` table): its migration ships in the package. In wrangler.toml set ' +
  '`migrations_dir = "node_modules/agent-vfs/dist/migrations"` for this D1 database (or copy node_modules/agent-vfs/dist/migrations/*.sql ' +
  'into your migrations folder), then run wrangler d1 migrations apply <database> [--local]; ' +
  'or call migrateD1(env.DB) from agent-vfs/worker once'

/** A D1 error that says the session index was never migrated becomes one that says what to do. */
function missingTable(error: unknown): unknown {
  if (/no such table: (sessions|session_quota_guard)|no such column: running/.test(String((error as Error)?.message))) {
    // A typed store error, so the API passes this message on instead of a generic 500.
    return new VfsError('ESTORE', undefined, SESSION_INDEX_MISSING, { cause: error })
  }
  return error
}
