-- agent-vfs D1 schema: the same DDL d1Store(db).migrate() runs (adapters/d1.ts, D1_SCHEMA).
-- Idempotent; a test checks the two stay identical. Apply: wrangler d1 migrations apply <db> [--local]

CREATE TABLE IF NOT EXISTS vfs_scopes (
  namespace TEXT NOT NULL, scope TEXT NOT NULL, version INTEGER NOT NULL,
  PRIMARY KEY (namespace, scope));

CREATE TABLE IF NOT EXISTS vfs_entries (
  namespace TEXT NOT NULL, scope TEXT NOT NULL, path TEXT NOT NULL, kind TEXT NOT NULL,
  size INTEGER NOT NULL, version INTEGER NOT NULL, mtime INTEGER NOT NULL, ctime INTEGER NOT NULL,
  PRIMARY KEY (namespace, scope, path));

CREATE TABLE IF NOT EXISTS vfs_chunks (
  namespace TEXT NOT NULL, scope TEXT NOT NULL, path TEXT NOT NULL, chunk INTEGER NOT NULL, data BLOB NOT NULL,
  PRIMARY KEY (namespace, scope, path, chunk));

CREATE TABLE IF NOT EXISTS vfs_guard (
  ok INTEGER NOT NULL CONSTRAINT vfs_version_conflict CHECK (ok = 1));
