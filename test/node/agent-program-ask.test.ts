import { memoryStore } from '../../src/index.js'
import { describeProgramAsk } from '../agent/program-ask-suite.js'

describeProgramAsk('node, memory store', async () => ({ store: () => memoryStore() }))
