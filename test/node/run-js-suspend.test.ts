import { afterAll } from 'vitest'
import { memoryStore } from '../../src/index.js'
import { workerThreads } from '../../src/runtimes/node/index.js'
import { describeRunJsSuspend } from '../run-js/suspend-suite.js'

// One memory store per test: a "restart" is a new workspace and a new runner on it.
describeRunJsSuspend('node, memory store', async () => ({ store: () => memoryStore() }))

// Programs in worker threads: the journal is kept by the host's side of the calls.
const threads = workerThreads({ size: 1, workerUrl: new URL('../run-js/worker-thread-dev.mjs', import.meta.url) })
afterAll(() => threads.close())
describeRunJsSuspend('node, worker threads', async () => ({ store: () => memoryStore(), executor: threads }))
