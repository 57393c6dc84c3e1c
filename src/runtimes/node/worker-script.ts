/**
 * The worker thread's script as code, for `new Worker(code, { eval: true })`: no file to find at run
 * time, so a Node app bundled into one file (esbuild, CJS or ESM) starts its threads from inside the
 * bundle. The build replaces this module with the text of dist/run-js-node-worker.js, one self-contained
 * CommonJS script (scripts/build.mjs). From source there is no such text: pass `workerThreads({ workerUrl })`
 * (test/run-js/worker-thread-dev.mjs).
 */
export default function workerScript(): string {
  throw new Error(
    'run_js: from source the worker script is not built; pass workerThreads({ workerUrl }) (test/run-js/worker-thread-dev.mjs)',
  )
}
