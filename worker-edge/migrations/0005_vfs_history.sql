-- agent-vfs D1 history schema: the same DDL d1Store(db).migrate() runs (adapters/d1-history.ts, D1_HISTORY_SCHEMA).
-- Idempotent; a test checks the two stay identical. Apply: wrangler d1 migrations apply <db> [--local]

CREATE TABLE IF NOT EXISTS vfs_changes (
  namespace TEXT NOT NULL, scope TEXT NOT NULL, version INTEGER NOT NULL, path TEXT NOT NULL, op TEXT NOT NULL,
  kind TEXT NOT NULL, version_before INTEGER NOT NULL, hash_before TEXT, hash_after TEXT, size_before INTEGER NOT NULL,
  size INTEGER NOT NULL, actor TEXT, time REAL NOT NULL,
  PRIMARY KEY (namespace, scope, version, path));

CREATE TABLE IF NOT EXISTS vfs_blobs (
  namespace TEXT NOT NULL, scope TEXT NOT NULL, hash TEXT NOT NULL, chunk INTEGER NOT NULL, data BLOB NOT NULL,
  PRIMARY KEY (namespace, scope, hash, chunk));
