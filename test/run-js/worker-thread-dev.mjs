// Starts the run_js worker thread from source: Node 20 worker threads do not inherit the parent's
// TypeScript loader, so register tsx here, then load the real entry. Tests and benches pass this file
// as workerThreads({ workerUrl }); the published package starts the built script it carries as text.
import { register } from 'tsx/esm/api'

register()
await import('../../src/runtimes/node/worker.ts')
