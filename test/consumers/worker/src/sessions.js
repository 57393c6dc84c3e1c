// agent-vfs/worker mounted in a user's Worker (wrangler.sessions.toml): one SQLite Durable Object
// per session, the D1 session index, the JWT secret AGENT_VFS_JWT_SECRET (.dev.vars locally).
import { createRunJs } from 'agent-vfs'
import { scriptedModel } from 'agent-vfs/agent'
import { workerdEngine } from 'agent-vfs/run-js/workerd'
import { createEdgeApp } from 'agent-vfs/worker'

export { SessionObject } from 'agent-vfs/worker'

// An offline agent: one TypeScript program through run_js, then it is done.
const doubler = {
  setup: () => ({
    model: scriptedModel(view =>
      view.call === 0
        ? {
            toolCalls: [
              {
                toolName: 'run_js',
                input: { code: `const n: number = 21; await vfs.write('/outputs/n.txt', String(n * 2)); return n * 2` },
              },
            ],
          }
        : { text: 'Wrote /outputs/n.txt' },
    ),
    policy: [{ decision: 'allow', tools: ['run_js'], reason: 'the example runs its program without approval' }],
    runJs: vfs => createRunJs({ vfs, engine: workerdEngine(), typescript: () => import('agent-vfs/run-js/typescript') }),
  }),
}

export default createEdgeApp({ agents: { doubler } })
