import { afterAll, expect, it } from 'vitest'
import { ALLOW_RUN_JS } from '../../fixtures/script-appendix/task.js'
import { createRunJs, memoryStore, type RunVfs } from '../../src/index.js'
import { scriptedModel } from '../../src/agent/index.js'
import { workerThreads } from '../../src/runtimes/node/index.js'
import { createSessionApp, createSessionHost, mintToken, type AgentProfile } from '../../src/session/index.js'
import { listen } from '../session/http-client.js'

// The server's thread stays free while a program spins: run_js in worker threads (as npm run serve does).
const threads = workerThreads({ size: 1, workerUrl: new URL('../run-js/worker-thread-dev.mjs', import.meta.url) })
afterAll(() => threads.close())

const spinner: AgentProfile = {
  setup: ({ owner }) => ({
    model: scriptedModel(view =>
      view.results.some(r => r.toolName === 'run_js')
        ? { text: 'done' }
        : { toolCalls: [{ toolName: 'run_js', input: { code: 'while (true) {}' } }] },
    ),
    policy: [ALLOW_RUN_JS],
    runJs: (vfs: RunVfs) => createRunJs({ vfs, executor: threads, limits: { timeMs: 6000 }, ...(owner ? { tenant: owner } : {}) }),
  }),
}

it('the server answers a GET while a busy program runs (run_js in a worker thread)', async () => {
  const secret = 'test-secret-test-secret-test-secret-0123'
  const host = createSessionHost({ store: memoryStore(), agents: { spinner }, pollMs: 50 })
  const server = await listen(createSessionApp(host, { auth: { secret } }).fetch)
  const auth = { authorization: `Bearer ${await mintToken(secret, 'ana')}`, 'content-type': 'application/json' }
  try {
    const { id } = (await (
      await fetch(`${server.url}/sessions`, { method: 'POST', headers: auth, body: '{"profile":"spinner"}' })
    ).json()) as { id: string }
    expect((await fetch(`${server.url}/sessions/${id}/messages`, { method: 'POST', headers: auth, body: '{"text":"spin"}' })).status).toBe(
      202,
    )
    const types = async () =>
      ((await host.events(id)) as Array<{ type: string; toolName?: string }>).filter(e => e.toolName === 'run_js').map(e => e.type)
    while (!(await types()).includes('tool-call')) await new Promise(r => setTimeout(r, 20))
    while (threads.stats().busy === 0) await new Promise(r => setTimeout(r, 5))
    // The program spins for 6 s; the GET is answered while it does.
    const t0 = performance.now()
    const res = await fetch(`${server.url}/sessions/${id}`, { headers: auth })
    const ms = performance.now() - t0
    expect(res.status).toBe(200)
    expect(((await res.json()) as { status: string }).status).toBe('running')
    expect(threads.stats().busy).toBe(1)
    expect(await types()).toEqual(['tool-call'])
    console.log(`GET answered in ${ms.toFixed(0)} ms while the program spun`)
    await host.settled(id)
    const result = ((await host.events(id)) as Array<{ type: string; toolName?: string; ok?: boolean; error?: { message: string } }>).find(
      e => e.type === 'tool-result' && e.toolName === 'run_js',
    )
    expect(result?.ok).toBe(false)
    expect(result?.error?.message).toMatch(/timed out/)
  } finally {
    await host.stop()
    await server.close()
  }
}, 60_000)
