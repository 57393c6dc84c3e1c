import { memoryStore } from '../../src/index.js'
import { workerdEngine } from '../../src/runtimes/workerd/index.js'
import { describeRunJsFaults } from '../run-js/faults-suite.js'
import { describeRunJsImportsHostile } from '../hostile/run-js-imports.js'
import { describeRunJsImports } from '../run-js/imports-suite.js'

describeRunJsImports('workerd, memory store', async () => ({
  store: memoryStore(),
  engine: workerdEngine(),
  typescript: () => import('agent-vfs/run-js/typescript'),
}))
describeRunJsImportsHostile('workerd, memory store', async () => ({
  store: memoryStore(),
  engine: workerdEngine(),
  typescript: () => import('agent-vfs/run-js/typescript'),
}))
describeRunJsFaults('workerd, memory store', async () => ({ store: memoryStore(), engine: workerdEngine() }))
