import { memoryStore } from '../../src/index.js'
import { describeRunJsSuspend } from '../run-js/suspend-suite.js'

// One memory store per test: a "restart" is a new workspace and a new runner on it.
describeRunJsSuspend('node, memory store', async () => ({ store: () => memoryStore() }))
