/**
 * `agent-vfs/run-js/node`: run_js in a pool of Node worker threads. Node-only; the root entry never
 * imports it.
 *
 * ```ts
 * import { createRunJs } from 'agent-vfs'
 * import { workerThreads } from 'agent-vfs/run-js/node'
 * const threads = workerThreads({ size: 4 })          // one per process, shared by every runner
 * const runJs = createRunJs({ vfs, executor: threads })
 * ```
 */
export { workerThreads, type WorkerThreadsExecutor, type WorkerThreadsOptions, type WorkerThreadsStats } from './worker-pool.js'
