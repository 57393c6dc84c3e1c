/**
 * A session server whose one profile runs a program that asks (test/node/session-program-ask.test.ts):
 * run by `node --conditions agent-vfs:source --import tsx`, on Postgres (DATABASE_URL), so that a
 * kill -9 of this process loses nothing acknowledged. Prints `on http://127.0.0.1:<port>`.
 */
import { serve } from '@hono/node-server'
import pg from 'pg'
import { createRunJs, postgresStore, type RunJsTool, type RunVfs } from 'agent-vfs'
import { scriptedModel } from 'agent-vfs/agent'
import { createSessionApp, createSessionHost, postgresSignals } from 'agent-vfs/session'

/** Writes, asks, writes the answer: a completed write before the question must not be redone. */
export const ASKING_PROGRAM = `
await vfs.write('/work/before.md', 'written before the question')
const { answer } = await external_ask_user({ question: 'Which title?', options: ['Dawn', 'Dusk'] })
await vfs.write('/work/title.md', answer)
return answer`

const env = process.env
const pool = new pg.Pool({ connectionString: env.DATABASE_URL, max: 5 })
const listener = new pg.Client({ connectionString: env.DATABASE_URL })
await listener.connect()
const store = postgresStore({ client: pool })
await store.migrate()
const signals = await postgresSignals({ listen: listener })
const host = createSessionHost({
  store,
  agents: {
    asks: {
      description: 'runs one program that asks the user',
      setup: () => ({
        model: scriptedModel(v =>
          v.last.length === 0 ? { toolCalls: [{ toolName: 'run_js', input: { code: ASKING_PROGRAM } }] } : { text: 'done' },
        ),
        runJs: (vfs: RunVfs, tools: Record<string, RunJsTool>) => createRunJs({ vfs, tools }),
      }),
    },
  },
  hostId: `program-ask-${process.pid}`,
  leaseMs: Number(env.LEASE_MS ?? 1500),
  signals,
  pollMs: 500,
})
const app = createSessionApp(host, { auth: { secret: env.AGENT_VFS_JWT_SECRET! } })
serve({ fetch: app.fetch, hostname: '127.0.0.1', port: 0 }, info => {
  console.log(`on http://127.0.0.1:${info.port}`)
  void host.recover().catch(() => undefined)
})
setInterval(() => void host.recover().catch(() => undefined), Number(env.LEASE_MS ?? 1500))
