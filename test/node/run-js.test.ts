import { memoryStore } from '../../src/index.js'
import { describeRunJs } from '../run-js/suite.js'

describeRunJs('node, memory store', async () => ({ store: memoryStore() }))
