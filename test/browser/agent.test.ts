import { deleteDB } from 'idb'
import { indexedDbStore, memoryStore } from '../../src/index.js'
import { describeAgentRuntime } from '../agent/runtime-suite.js'

// The agent runtime in Chromium: the shared suite (the script-appendix example with real run_js,
// plan and result rules, a durable ASK, kill/resume) on IndexedDB, where every "restart" reopens
// the workspace from the database, and on the memory store.
describeAgentRuntime('chromium, indexeddb store', async () => {
  const dbName = `agent-vfs-test-agent-${crypto.randomUUID()}`
  const store = indexedDbStore({ dbName })
  return {
    store,
    cleanup: async () => {
      await store.close?.()
      await deleteDB(dbName)
    },
  }
})

describeAgentRuntime('chromium, memory store', async () => ({ store: memoryStore() }))
