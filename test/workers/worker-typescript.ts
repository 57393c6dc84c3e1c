/**
 * The repository's Worker with TypeScript programs allowed in run_js: worker-edge/src/index.ts with
 * the same routes, but session profiles whose run_js loads the TypeScript loader (the Worker itself
 * passes `typescript: false`). test/node/worker-size.test.ts measures it with
 * `wrangler deploy test/workers/worker-typescript.ts --dry-run --minify`; not a test file.
 */
import { workerdEngine } from 'agent-vfs/run-js/workerd'
import { createEdgeApp } from 'agent-vfs/worker'
import { scriptAppendixProfile } from '../../fixtures/script-appendix/profile.js'
import app from '../../worker-edge/src/index.js'

export { SessionObject, WorkspaceObject } from '../../worker-edge/src/index.js'

const runJs = { engine: workerdEngine(), typescript: () => import('agent-vfs/run-js/typescript') }
// The session objects read the options of the script's last createEdgeApp call: this one.
createEdgeApp({
  agents: {
    appendix: scriptAppendixProfile({ runJs }),
    'appendix-asking': scriptAppendixProfile({ askFirst: true, approveRunJs: true, runJs }),
  },
})

export default app
