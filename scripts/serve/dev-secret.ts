import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'

/**
 * The dev-mode JWT secret, kept in the data folder so that a printed dev token stays valid for its
 * 24 hours across restarts. Only for a local server: set AGENT_VFS_JWT_SECRET for anything shared.
 */
export function devSecret(dir: string): { secret: string; path: string } {
  const path = join(dir, 'dev-jwt-secret')
  if (existsSync(path)) {
    const kept = readFileSync(path, 'utf8').trim()
    if (/^[0-9a-f]{64}$/.test(kept)) return { secret: kept, path }
  }
  const secret = Array.from(crypto.getRandomValues(new Uint8Array(32)), b => b.toString(16).padStart(2, '0')).join('')
  writeFileSync(path, `${secret}\n`, { mode: 0o600 })
  return { secret, path }
}
