import { memoryStore } from '../../src/index.js'
import { workerThreads } from '../../src/runtimes/node/index.js'
import { describeRunJsFaults } from '../run-js/faults-suite.js'
import { describeRunJsImportsHostile } from '../hostile/run-js-imports.js'
import { describeRunJsImports } from '../run-js/imports-suite.js'

const workerUrl = new URL('../run-js/worker-thread-dev.mjs', import.meta.url)

describeRunJsImports('node, memory store', async () => ({ store: memoryStore(), typescript: () => import('ts-blank-space') }))
describeRunJsImportsHostile('node, memory store', async () => ({ store: memoryStore(), typescript: () => import('ts-blank-space') }))
describeRunJsFaults('node, memory store', async () => ({ store: memoryStore() }))

// Programs in worker threads read their modules, and are charged their writes, through the host thread.
describeRunJsImports('node, worker threads', async () => {
  const executor = workerThreads({ size: 1, workerUrl })
  return { store: memoryStore(), executor, cleanup: () => executor.close() }
})
describeRunJsImportsHostile('node, worker threads', async () => {
  const executor = workerThreads({ size: 1, workerUrl })
  return { store: memoryStore(), executor, cleanup: () => executor.close() }
})
describeRunJsFaults('node, worker threads', async () => {
  const executor = workerThreads({ size: 1, workerUrl })
  return { store: memoryStore(), executor, cleanup: () => executor.close() }
})
