import type { D1Migration } from 'cloudflare:test'
import type { Env as EdgeEnv } from '../../worker-edge/src/env.js'

// Types `env` from cloudflare:workers / cloudflare:test: the Worker's bindings plus the test-only one.
declare global {
  namespace Cloudflare {
    interface Env extends EdgeEnv {
      TEST_MIGRATIONS: D1Migration[]
    }
    // Types `exports` from cloudflare:workers: the Worker's own entry points.
    interface GlobalProps {
      mainModule: typeof import('../../worker-edge/src/index.js')
      durableNamespaces: 'WorkspaceObject' | 'SessionObject'
    }
  }
}
export {}
