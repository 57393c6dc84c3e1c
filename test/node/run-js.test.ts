import { memoryStore } from '../../src/index.js'
import { describeRunJsHostile } from '../hostile/run-js.js'
import { describeRunJs } from '../run-js/suite.js'

describeRunJs('node, memory store', async () => ({ store: memoryStore() }))
describeRunJsHostile('node, memory store', async () => ({ store: memoryStore() }))
