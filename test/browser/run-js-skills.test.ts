import { memoryStore } from '../../src/index.js'
import { describeRunJsFaults } from '../run-js/faults-suite.js'
import { describeRunJsImportsHostile } from '../hostile/run-js-imports.js'
import { describeRunJsImports } from '../run-js/imports-suite.js'

describeRunJsImports('chromium, memory store', async () => ({ store: memoryStore(), typescript: () => import('ts-blank-space') }))
describeRunJsImportsHostile('chromium, memory store', async () => ({ store: memoryStore(), typescript: () => import('ts-blank-space') }))
describeRunJsFaults('chromium, memory store', async () => ({ store: memoryStore() }))
