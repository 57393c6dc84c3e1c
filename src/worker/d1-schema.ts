/**
 * The D1 session index of agent-vfs/worker as data: the statements of the package's migrations
 * (dist/migrations, from worker-edge/migrations 0002, 0003 and 0004; a test keeps them identical), for apps
 * that set up D1 from code instead of `wrangler d1 migrations apply`.
 */

/** The session index's DDL, in order, one statement each: what dist/migrations/*.sql hold. */
export const D1_SESSION_SCHEMA: readonly string[] = [
  `CREATE TABLE IF NOT EXISTS sessions (
  id TEXT NOT NULL PRIMARY KEY,
  owner TEXT NOT NULL,
  n INTEGER NOT NULL,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  status TEXT NOT NULL,
  title TEXT NOT NULL,
  bytes INTEGER NOT NULL DEFAULT 0,
  record TEXT NOT NULL)`,
  'CREATE UNIQUE INDEX IF NOT EXISTS sessions_by_owner ON sessions (owner, n)',
  `CREATE TABLE IF NOT EXISTS session_quota_guard (
  ok INTEGER NOT NULL CONSTRAINT session_quota_exceeded CHECK (ok = 1))`,
  'ALTER TABLE sessions ADD COLUMN running INTEGER NOT NULL DEFAULT 0',
  'ALTER TABLE sessions ADD COLUMN usage TEXT',
]

/** The minimum of D1 that {@link migrateD1} uses (a `D1Database` binding is one). */
export interface D1Migratable {
  prepare(query: string): { run(): Promise<unknown> }
}

/**
 * Creates the session index in `db` (a D1 binding) or adds what an older version lacks; safe to call
 * on every start. The same result as applying dist/migrations with wrangler, so either way works, and
 * a database set up one way can later be migrated the other way's next step.
 */
export async function migrateD1(db: D1Migratable): Promise<void> {
  for (const statement of D1_SESSION_SCHEMA) {
    try {
      await db.prepare(statement).run()
    } catch (error) {
      // ALTER TABLE … ADD COLUMN has no IF NOT EXISTS: a column that is there already is what we want.
      if (statement.startsWith('ALTER TABLE') && /duplicate column name/i.test(String((error as Error)?.message))) continue
      throw error
    }
  }
}
