import { openDB } from 'idb'

const STORE = 'keys'
const KEY = 'jwt-secret'

/**
 * This browser's secret for the in-tab host's tokens: made once, kept in IndexedDB (a worker has
 * no localStorage). Read and created in one transaction, so two tabs starting at once agree.
 */
export async function browserSecret(dbName: string): Promise<string> {
  const db = await openDB(dbName, 1, { upgrade: d => void d.createObjectStore(STORE) })
  try {
    const tx = db.transaction(STORE, 'readwrite')
    const existing: unknown = await tx.store.get(KEY)
    let secret = typeof existing === 'string' && existing.length >= 32 ? existing : undefined
    if (!secret) {
      secret = Array.from(crypto.getRandomValues(new Uint8Array(32)), b => b.toString(16).padStart(2, '0')).join('')
      await tx.store.put(secret, KEY)
    }
    await tx.done
    return secret
  } finally {
    db.close()
  }
}
