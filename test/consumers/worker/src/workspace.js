import { DurableObject } from 'cloudflare:workers'
import { createRunJs, durableObjectStore, openVfs } from 'agent-vfs'
import { workerdEngine } from 'agent-vfs/run-js/workerd'

/** One workspace per Durable Object; `run` executes a run_js program over it. */
export function workspaceClass(typescript) {
  return class Workspace extends DurableObject {
    async run(code) {
      this.vfs ??= await openVfs({
        store: durableObjectStore(this.ctx.storage),
        namespace: 'consumer',
        scope: 'main',
        autoRefresh: false,
      })
      return createRunJs({ vfs: this.vfs, engine: workerdEngine(), typescript }).run(code)
    }
  }
}

/** POST /run with a program as the body. */
export const app = {
  async fetch(request, env) {
    if (new URL(request.url).pathname !== '/run') return new Response('not found', { status: 404 })
    return Response.json(await env.WORKSPACE.getByName('main').run(await request.text()))
  },
}
