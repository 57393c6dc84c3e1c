import { env } from 'cloudflare:workers'
import { Hono } from 'hono'
import { createRunJs, d1Store, openVfs } from 'agent-vfs'
import { workerdEngine } from 'agent-vfs/run-js/workerd'
import { DEFAULT_OWNER_QUOTA } from 'agent-vfs/session'
import { createEdgeApp } from 'agent-vfs/worker'
import { sessionMcp } from 'agent-vfs/mcp'
import { pacedProfile } from '../../fixtures/script-appendix/paced.js'
import { scriptAppendixProfile } from '../../fixtures/script-appendix/profile.js'
import { programQuestionProfile } from '../../fixtures/script-appendix/program-question.js'
import { proposeNotesProfile } from '../../fixtures/script-appendix/propose-notes.js'
import { DEMO_STREAM } from '../../fixtures/script-appendix/stream.js'
import type { Env } from './env.js'
import { fileRoutes } from './file-routes.js'

export { WorkspaceObject } from './workspace-object.js'
export { SessionObject } from 'agent-vfs/worker'
export type { Env } from './env.js'

/** run_js in workerd: QuickJS from the imported wasm module; the example's programs are plain JavaScript. */
const runJs = { engine: workerdEngine(), typescript: false } as const

/** `MODEL_DELAY_MS` from the env (a `.dev.vars` line, or the tests'), read at each execution's setup: 0 unless set. */
const modelDelay = () => Number((env as Partial<Env>).MODEL_DELAY_MS ?? 0)

/**
 * The session API (agent-vfs/worker): `/sessions/…`, one Durable Object per session, with the
 * script-appendix profiles `npm run serve` has: `appendix`, and `appendix-asking` (asks a question,
 * wants approval for run_js), `program-question` (a program that asks from inside run_js), and `propose-notes` (its writes wait for
 * approval as a diff).
 */
export const sessions = createEdgeApp({
  agents: {
    // The scripted model streams its text in pieces, so the demo's timeline shows it growing (?live=1).
    appendix: pacedProfile(scriptAppendixProfile({ runJs, stream: DEMO_STREAM }), modelDelay),
    'appendix-asking': pacedProfile(scriptAppendixProfile({ askFirst: true, approveRunJs: true, runJs, stream: DEMO_STREAM }), modelDelay),
    'program-question': programQuestionProfile({ runJs }),
    'propose-notes': proposeNotesProfile({ runJs }),
  },
  // The default quota, with room for the 200 SSE observers of one session that bench/session-edge.bench.ts opens.
  quota: { ...DEFAULT_OWNER_QUOTA, maxStreams: 256 },
  // Every session's workspace as an MCP server, run_js included (docs/mcp.md).
  mcp: sessionMcp({ runJs: vfs => createRunJs({ vfs, ...runJs }) }),
})

/**
 * The edge Worker. `/ws/:name/…` is served by the Durable Object named `name`, which owns that
 * workspace; `/d1/:name/…` opens the workspace `name` in D1 for the one request (any isolate may
 * write it, so nothing is cached across requests and a stale writer gets 409 ECONFLICT).
 */
const app = new Hono<{ Bindings: Env }>()

app.get('/', c => c.json({ service: 'agent-vfs worker-edge' }))
app.all('/ws/:name/*', c => c.env.WORKSPACE.getByName(c.req.param('name')).fetch(c.req.raw))
// The schema comes from worker-edge/migrations (wrangler d1 migrations apply), not a DDL batch per request.
app.route(
  '/d1/:name',
  fileRoutes<{ Bindings: Env }>(c =>
    openVfs({
      store: d1Store(c.env.DB, { autoMigrate: false }),
      namespace: 'd1',
      scope: c.req.param('name') ?? '',
      autoRefresh: false,
    }),
  ),
)
app.route('/', sessions as unknown as Hono<{ Bindings: Env }>)

export default app
