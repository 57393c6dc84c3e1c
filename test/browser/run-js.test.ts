import { memoryStore } from '../../src/index.js'
import { describeRunJs } from '../run-js/suite.js'

describeRunJs('chromium, memory store', async () => ({ store: memoryStore(), typescript: () => import('ts-blank-space') }))
