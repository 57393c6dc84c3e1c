import { deleteDB } from 'idb'
import { indexedDbStore, memoryStore } from '../../src/index.js'
import { describeHostileWorkspace } from '../hostile/workspace.js'

describeHostileWorkspace('memory (browser)', async () => ({ store: memoryStore() }))
describeHostileWorkspace('indexeddb', async () => {
  const dbName = `agent-vfs-test-hostile-${crypto.randomUUID()}`
  const store = indexedDbStore({ dbName })
  return {
    store,
    cleanup: async () => {
      await store.close?.()
      await deleteDB(dbName)
    },
  }
})
