// agent-vfs/bash in Chromium: the shared suite (test/bash/suite.ts) on IndexedDB and on the memory store.
import { indexedDbStore, memoryStore } from '../../src/index.js'
import { bashSuite } from '../bash/suite.js'

const idb = indexedDbStore({ dbName: `bash-${Date.now()}` })
bashSuite('IndexedDB (Chromium)', { store: () => idb })
const memory = memoryStore()
bashSuite('the memory store (Chromium)', { store: () => memory })
