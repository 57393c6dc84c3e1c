import { memoryStore } from '../../src/index.js'
import { describeRunJsHostile } from '../hostile/run-js.js'
import { describeRunJs } from '../run-js/suite.js'

describeRunJs('chromium, memory store', async () => ({ store: memoryStore(), typescript: () => import('ts-blank-space') }))
describeRunJsHostile('chromium, memory store', async () => ({ store: memoryStore() }))
