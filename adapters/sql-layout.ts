import { VfsError } from '../src/contract/errors.js'

/**
 * The table layout the SQLite-family adapters (Durable Object, D1) share. One row per scope holds
 * its version (negated once the scope is deleted); one row per entry its metadata; content lives in numbered chunk rows because these
 * backends cap one value (and one row) at ~2 MB. Everything is keyed by (namespace, scope) so one
 * database holds many workspaces. The `vfs_` prefix keeps clear of the host's tables (`_cf_` is
 * reserved by the runtime).
 */
export const VFS_TABLES = [
  `CREATE TABLE IF NOT EXISTS vfs_scopes (
  namespace TEXT NOT NULL, scope TEXT NOT NULL, version INTEGER NOT NULL,
  PRIMARY KEY (namespace, scope))`,
  `CREATE TABLE IF NOT EXISTS vfs_entries (
  namespace TEXT NOT NULL, scope TEXT NOT NULL, path TEXT NOT NULL, kind TEXT NOT NULL,
  size INTEGER NOT NULL, version INTEGER NOT NULL, mtime INTEGER NOT NULL, ctime INTEGER NOT NULL,
  PRIMARY KEY (namespace, scope, path))`,
  `CREATE TABLE IF NOT EXISTS vfs_chunks (
  namespace TEXT NOT NULL, scope TEXT NOT NULL, path TEXT NOT NULL, chunk INTEGER NOT NULL, data BLOB NOT NULL,
  PRIMARY KEY (namespace, scope, path, chunk))`,
] as const

/** The tables deleteScope clears, children first. The scope's row stays: see {@link TOMBSTONE}. */
export const VFS_ENTRY_TABLES = ['vfs_chunks', 'vfs_entries'] as const

/**
 * What deleteScope does to the scope's version row (binds namespace, scope): it keeps the
 * version, negated, so the next commit continues from it (versions never repeat for a scope name,
 * and a stale compare-and-swap cannot match a recreated file) while listScopes skips the scope.
 */
export const TOMBSTONE = 'UPDATE vfs_scopes SET version = -abs(version) WHERE namespace = ?1 AND scope = ?2'

/** Copies of `data` cut into `size`-byte pieces (none for empty content). Copies: bindings want whole buffers. */
export function splitChunks(data: Uint8Array, size: number): Uint8Array[] {
  const out: Uint8Array[] = []
  for (let at = 0; at < data.length; at += size) out.push(data.slice(at, at + size))
  return out
}

/** Reassembles a file from its chunks in order, and refuses one whose bytes do not add up. */
export function joinChunks(parts: Array<Uint8Array | ArrayBuffer>, size: number, path: string): Uint8Array {
  if (parts.length === 1 && parts[0].byteLength === size) return parts[0] instanceof ArrayBuffer ? new Uint8Array(parts[0]) : parts[0]
  const out = new Uint8Array(size)
  let at = 0
  for (const part of parts) {
    const bytes = part instanceof ArrayBuffer ? new Uint8Array(part) : part
    if (at + bytes.length > size) {
      at += bytes.length
      break
    }
    out.set(bytes, at)
    at += bytes.length
  }
  if (at !== size)
    throw new VfsError('ESTORE', path, `the stored content does not add up to the ${size} bytes its entry records; the store is damaged`)
  return out
}
