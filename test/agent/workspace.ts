import { memoryStore, openVfs, scopeRun, type RunVfs, type Vfs, type VfsStore } from '../../src/index.js'

/** A fresh run-scoped workspace on a memory store, with the store to reopen it. */
export async function freshRun(runId = 'r1', store: VfsStore = memoryStore()): Promise<{ store: VfsStore; base: Vfs; run: RunVfs }> {
  const base = await openVfs({ store, namespace: 'test', scope: 'session-1' })
  return { store, base, run: scopeRun(base, { runId }) }
}

/** Reopens the same scope, as a new process would after a crash. */
export async function reopen(store: VfsStore, runId = 'r1'): Promise<RunVfs> {
  const base = await openVfs({ store, namespace: 'test', scope: 'session-1' })
  return scopeRun(base, { runId })
}
