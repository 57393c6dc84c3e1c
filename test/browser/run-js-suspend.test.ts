import { indexedDbStore } from '../../src/index.js'
import { describeProgramAsk } from '../agent/program-ask-suite.js'
import { describeRunJsSuspend } from '../run-js/suspend-suite.js'

// A "restart" is a new IndexedDB store object on the same database, a new workspace and a new runner.
let n = 0
const idb = () => {
  const dbName = `suspend-${Date.now()}-${n++}`
  return () => indexedDbStore({ dbName })
}
describeRunJsSuspend('chromium, IndexedDB', async () => ({ store: idb() }))
describeProgramAsk('chromium, IndexedDB', async () => ({ store: idb() }))
