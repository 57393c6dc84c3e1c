import { abortAllDurableObjects, runDurableObjectAlarm, runInDurableObject } from 'cloudflare:test'
import { env } from 'cloudflare:workers'
import { beforeAll, describe, expect, it } from 'vitest'
import { APPENDIX_INSTRUCTIONS } from '../../fixtures/script-appendix/task.js'
import type { AgentProfile } from '../../src/session/index.js'
import { completions, expectContiguous } from '../session/harness.js'
import { appendixProfile, call, configureEdge, createSession, events, expectJson, token, uploadSeason, waitStatus } from './edge-harness.js'

// Eviction for real: every object is reset (abortAllDurableObjects: in-memory state, timers and the
// run's promises gone, storage kept) while the first run's model hangs at its fifth call, as a
// slow model would. The hang is a promise of the object's own (one from the test would tie the
// test to the dead instance); the test sees it through a plain flag. Later runs go through.
function hangingOnce(at: number) {
  const base = appendixProfile()
  const state = { runs: 0, reached: false }
  const profile: AgentProfile = {
    async setup(e) {
      const s = await base.setup(e)
      if (++state.runs > 1) return s
      let n = 0
      return {
        ...s,
        model: {
          ...s.model,
          doGenerate: async (o) => {
            if (++n === at) {
              state.reached = true
              await new Promise(() => undefined)
            }
            return s.model.doGenerate(o)
          },
        },
      }
    },
  }
  return { profile, state }
}

const byAlarm = hangingOnce(5)
const byRequest = hangingOnce(5)
let ana: string

beforeAll(async () => {
  // A long tick: the alarm the message set stays pending until the test runs it.
  configureEdge({ agents: { byAlarm: byAlarm.profile, byRequest: byRequest.profile }, alarm: { tickMs: 600_000 } })
  ana = await token('ana')
})

/** Starts the appendix on `profile`, waits until its model hangs, then resets every object. */
async function startAndEvict(profile: string, hang: ReturnType<typeof hangingOnce>) {
  const s = await createSession(ana, profile)
  await uploadSeason(ana, s.id)
  await expectJson(call('POST', `/sessions/${s.id}/messages`, ana, { text: APPENDIX_INSTRUCTIONS }), 202)
  for (let i = 0; i < 2000 && !hang.state.reached; i++) await new Promise((r) => setTimeout(r, 10))
  expect(hang.state.reached).toBe(true)
  const before = await events(ana, s.id)
  await abortAllDurableObjects()
  return { s, stub: env.SESSIONS.getByName(s.id), before }
}

/** The run after the eviction continued from the checkpoint: nothing completed twice, one execution, completed. */
async function expectContinued(id: string, before: Awaited<ReturnType<typeof events>>) {
  const all = await events(ana, id)
  expectContiguous(all)
  const doneBefore = completions(before)
  const done = completions(all)
  expect(doneBefore.length).toBeGreaterThan(0)
  expect(done.slice(0, doneBefore.length)).toEqual(doneBefore)
  expect(new Set(done).size).toBe(done.length)
  const executions = await expectJson<any[]>(call('GET', `/sessions/${id}/executions`, ana), 200)
  expect(executions.map((e) => [e.id, e.status])).toEqual([['e0001', 'completed']])
  expect(all.filter((e) => e.type === 'execution-end').map((e) => (e as any).status)).toEqual(['completed'])
  expect((await call('GET', `/sessions/${id}/file?path=/outputs/assets.json`, ana)).status).toBe(200)
}

describe('a session object evicted mid-execution', () => {
  it('continues from its last checkpoint when its alarm fires, redoing no completed step', async () => {
    const { s, stub, before } = await startAndEvict('byAlarm', byAlarm)
    // The alarm the message set runs in a fresh instance: it takes the stale lease over at once and
    // awaits the run (bounded), without any request.
    expect(await runDurableObjectAlarm(stub)).toBe(true)
    expect(byAlarm.state.runs).toBe(2)
    // Done within the alarm: the session settled, and no further alarm is set.
    expect(await runInDurableObject(stub, (_o, state) => state.storage.getAlarm())).toBeNull()
    expect(await waitStatus(ana, s.id, ['idle'], 1000)).toBe('idle')
    await expectContinued(s.id, before)
  })

  it('continues on the next request too, without waiting for the stale lease to expire', async () => {
    const { s, before } = await startAndEvict('byRequest', byRequest)
    const start = Date.now()
    expect(await waitStatus(ana, s.id, ['idle'])).toBe('idle')
    // The lease lasts 30 s; an exclusive host does not wait for it.
    expect(Date.now() - start).toBeLessThan(25_000)
    expect(byRequest.state.runs).toBe(2)
    await expectContinued(s.id, before)
  })
})
