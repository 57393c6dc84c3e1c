import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { memoryStore } from '../../src/index.js'
import { createSessionApp, createSessionHost, mintToken, type SessionHost } from '../../src/session/index.js'
import { listen } from '../session/http-client.js'
import { skillsProfile } from '../session/run-js-reach-profiles.js'

// Skills as code through the session API: one execution writes a module, later executions of the
// same session import it; the hostile imports fail as ImportError in the program, visible to the model.
const secret = 'session-imports-secret-session-imports-01'
let host: SessionHost
let server: Awaited<ReturnType<typeof listen>>
let token: string

beforeAll(async () => {
  host = createSessionHost({
    store: memoryStore(),
    pollMs: 20,
    agents: {
      skills: skillsProfile(),
    },
  })
  server = await listen(createSessionApp(host, { auth: { secret } }).fetch)
  token = await mintToken(secret, 'skills-owner')
})
afterAll(async () => {
  await host.stop()
  await server.close()
})

const call = async (method: string, path: string, body?: unknown) => {
  const res = await fetch(server.url + path, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  })
  return { status: res.status, text: await res.text() }
}

async function execute(id: string, text: string): Promise<void> {
  expect((await call('POST', `/sessions/${id}/messages`, { text })).status).toBe(202)
  for (let i = 0; ; i++) {
    const { status } = JSON.parse((await call('GET', `/sessions/${id}`)).text) as { status: string }
    if (status === 'idle' || status === 'failed') return
    if (i > 600) throw new Error(`session ${id} stayed ${status}`)
    await new Promise(r => setTimeout(r, 50))
  }
}

/** The run_js results the model saw, by execution. */
async function runJsResults(id: string): Promise<Record<string, { ok: boolean; output?: unknown; error?: { message: string } }>> {
  const { events } = JSON.parse((await call('GET', `/sessions/${id}/events?limit=1000`)).text) as { events: Array<Record<string, unknown>> }
  return Object.fromEntries(
    events.filter(e => e.type === 'tool-result' && e.toolName === 'run_js').map(e => [e.executionId as string, e as never]),
  )
}

describe('run_js imports through the session API (Node host)', () => {
  it('a module written by one execution is imported by later executions of the session; hostile imports fail in the program', async () => {
    const { id } = JSON.parse((await call('POST', '/sessions', { profile: 'skills' })).text) as { id: string }
    for (let i = 1; i <= 5; i++) await execute(id, `step ${i}`)
    const results = await runJsResults(id)
    expect(results.e0001).toMatchObject({ ok: true })
    expect(results.e0002).toMatchObject({ ok: true })
    expect((await call('GET', `/sessions/${id}/file?path=${encodeURIComponent('/work/out.md')}`)).text).toBe('hello-world')
    // Outside the session's roots, a bare name no import map names, above the workspace root.
    expect(results.e0003).toMatchObject({ ok: false, error: { message: expect.stringMatching(/^ImportError: /) } })
    expect(results.e0004).toMatchObject({ ok: false, error: { message: expect.stringMatching(/^ImportError: .*bare module names/) } })
    expect(results.e0005).toMatchObject({
      ok: false,
      error: { message: expect.stringMatching(/^ImportError: .*above the workspace root/) },
    })
    // The modules a run loaded are archived with it.
    const files = JSON.parse((await call('GET', `/sessions/${id}/files`)).text) as Array<{ path: string }>
    expect(files.some(f => f.path.endsWith('.modules.json'))).toBe(true)
  }, 180_000)
})
