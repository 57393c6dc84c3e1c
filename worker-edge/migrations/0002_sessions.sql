-- The session index of agent-vfs/worker (src/worker/d1-owner-index.ts): one row per session, kept
-- current by the session's Durable Object. It lists an owner's sessions (newest first, by `n`) and
-- sums their usage for the quotas; the Worker forwards a request to a session's object only after
-- this row says the caller owns it. Apply: wrangler d1 migrations apply <db> [--local]

CREATE TABLE IF NOT EXISTS sessions (
  id TEXT NOT NULL PRIMARY KEY,
  owner TEXT NOT NULL,
  n INTEGER NOT NULL,            -- the owner's n-th session: orders the list, pages it (cursor = n)
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  status TEXT NOT NULL,
  title TEXT NOT NULL,
  bytes INTEGER NOT NULL DEFAULT 0,
  record TEXT NOT NULL);         -- the session record as JSON, what GET /sessions lists

CREATE UNIQUE INDEX IF NOT EXISTS sessions_by_owner ON sessions (owner, n);

-- A row that can never be inserted: a batch adds one when a quota would be exceeded, so the whole
-- batch (a D1 transaction) fails and nothing of it is written.
CREATE TABLE IF NOT EXISTS session_quota_guard (
  ok INTEGER NOT NULL CONSTRAINT session_quota_exceeded CHECK (ok = 1));
