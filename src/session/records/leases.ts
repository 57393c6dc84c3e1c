import type { VfsStore } from 'agent-vfs'
import { deleteRecord, putJson, updateRecords, versionOf } from './records.js'
import { LEASE_PATH, SESSION_PATH, scopeNames } from '../storage.js'

/** Who runs a session's executions now, until when. Kept in the session's meta scope. */
export interface Lease {
  holder: string
  expiresAt: number
}

/**
 * Takes the session's lease for `holder` when it is free, expired or already `holder`'s (or, with
 * `takeOver`, held by anyone: an exclusive host knows every other holder is dead), and extends it
 * to `now + ttlMs`. The write is conditional on the version read, so of two hosts racing for an
 * expired lease exactly one gets it. Resolves to whether `holder` holds it now.
 */
export function acquireLease(
  store: VfsStore,
  namespace: string,
  sessionId: string,
  holder: string,
  ttlMs: number,
  takeOver = false,
): Promise<boolean> {
  return updateRecords(store, namespace, scopeNames.meta(sessionId), records => {
    const current = records.get(LEASE_PATH)?.value as Lease | undefined
    const now = Date.now()
    // A deleted session has no lease to take (and writing one would bring its scope back).
    if (!records.has(SESSION_PATH)) return { ops: [], value: false }
    if (current && current.holder !== holder && current.expiresAt > now && !takeOver) return { ops: [], value: false }
    return {
      ops: [putJson(LEASE_PATH, { holder, expiresAt: now + ttlMs } satisfies Lease, versionOf(records, LEASE_PATH))],
      value: true,
    }
  })
}

/** Gives the lease up if `holder` still holds it. */
export function releaseLease(store: VfsStore, namespace: string, sessionId: string, holder: string): Promise<void> {
  return updateRecords(store, namespace, scopeNames.meta(sessionId), records => {
    const current = records.get(LEASE_PATH)?.value as Lease | undefined
    if (!current || current.holder !== holder) return { ops: [], value: undefined }
    return { ops: [deleteRecord(LEASE_PATH, versionOf(records, LEASE_PATH))], value: undefined }
  })
}
