import { abortAllDurableObjects } from 'cloudflare:test'
import { beforeAll, describe, expect, inject, it } from 'vitest'
import { workerdEngine } from '../../src/runtimes/workerd/index.js'
import type { SessionEvent } from '../../src/session/index.js'
import { fetchingProfile, skillsProfile } from '../session/run-js-reach-profiles.js'
import { call, configureEdge, createSession, events, expectJson, token, waitStatus } from './edge-harness.js'

// run_js's reach through the Worker's session API (one Durable Object per session): imports of a
// library an earlier execution wrote, and a fetch of a new host routed by the policy to an approval,
// answered after every object was reset (storage kept). The fetch goes to a loopback server started
// by the project's global setup (test/run-js/fetch-servers.ts).
const origins = inject('fetchOrigins')
configureEdge({ agents: { skills: skillsProfile(workerdEngine()), fetches: fetchingProfile(origins.echo, workerdEngine()) } })

let ana: string
beforeAll(async () => {
  ana = await token('ana')
})

const runJsResults = async (id: string) =>
  Object.fromEntries(
    (await events(ana, id))
      .filter((e): e is Extract<SessionEvent, { type: 'tool-result' }> => e.type === 'tool-result' && e.toolName === 'run_js')
      .map(e => [e.executionId, e as { ok: boolean; error?: { message: string } }]),
  )

const dataRequests = async () =>
  ((await (await fetch(`${origins.echo}/__seen`)).json()) as Array<{ url: string }>).filter(s => s.url === '/data').length

const fileText = async (id: string, path: string) =>
  (await call('GET', `/sessions/${id}/file?path=${encodeURIComponent(path)}`, ana)).text()

describe('run_js reach through the Worker session API', () => {
  it('a module written by one execution is imported by later executions; hostile imports fail in the program', async () => {
    const s = await createSession(ana, 'skills')
    for (let i = 1; i <= 5; i++) {
      await expectJson(call('POST', `/sessions/${s.id}/messages`, ana, { text: `step ${i}` }), 202)
      await waitStatus(ana, s.id, ['idle', 'failed'])
    }
    const results = await runJsResults(s.id)
    expect(results.e0001).toMatchObject({ ok: true })
    expect(results.e0002).toMatchObject({ ok: true })
    expect(await fileText(s.id, '/work/out.md')).toBe('hello-world')
    expect(results.e0003).toMatchObject({ ok: false, error: { message: expect.stringMatching(/^ImportError: /) } })
    expect(results.e0004).toMatchObject({ ok: false, error: { message: expect.stringMatching(/^ImportError: .*bare module names/) } })
    expect(results.e0005).toMatchObject({
      ok: false,
      error: { message: expect.stringMatching(/^ImportError: .*above the workspace root/) },
    })
  })

  for (const decision of ['approve', 'deny'] as const) {
    it(`a fetch of a new host parks on an approval; after the objects are reset, ${decision} resumes the program`, async () => {
      const before = await dataRequests()
      const s = await createSession(ana, 'fetches')
      await expectJson(call('POST', `/sessions/${s.id}/messages`, ana, { text: 'fetch' }), 202)
      expect(await waitStatus(ana, s.id, ['waiting_approval', 'idle', 'failed'])).toBe('waiting_approval')
      const pending = await expectJson<Array<{ id: string }>>(call('GET', `/sessions/${s.id}/pending`, ana), 200)
      expect(pending).toEqual([
        expect.objectContaining({ kind: 'approval', fetch: { url: `${origins.echo}/data`, origin: origins.echo, method: 'GET' } }),
      ])
      expect(await dataRequests()).toBe(before)
      await abortAllDurableObjects()
      await expectJson(call('POST', `/sessions/${s.id}/pending/${pending[0].id}`, ana, { decision }), 202)
      expect(await waitStatus(ana, s.id, ['idle', 'failed'])).toBe('idle')
      const outcome = await fileText(s.id, '/work/outcome.md')
      if (decision === 'approve') {
        expect(outcome).toBe('fetched 200 GET')
        expect(await dataRequests()).toBe(before + 1)
      } else {
        expect(outcome).toMatch(/^FetchRefused: the user denied GET /)
        expect(await dataRequests()).toBe(before)
      }
    })
  }
})
