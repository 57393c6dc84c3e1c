import { abortAllDurableObjects, runDurableObjectAlarm, runInDurableObject } from 'cloudflare:test'
import { env } from 'cloudflare:workers'
import { beforeAll, describe, expect, it } from 'vitest'
import { APPENDIX_INSTRUCTIONS } from '../../fixtures/script-appendix/task.js'
import { durableObjectStore } from '../../src/index.js'
import type { AgentProfile, SessionRecord } from '../../src/session/index.js'
import { completions, expectContiguous } from '../session/harness.js'
import { hangingOnce } from './hanging-profile.js'
import { appendixProfile, call, configureEdge, createSession, events, expectJson, token, uploadSeason, waitStatus } from './edge-harness.js'

// Eviction for real: every object is reset (abortAllDurableObjects: in-memory state, timers and the
// run's promises gone, storage kept) while the first run's model hangs at its fifth call
// (hangingOnce, hanging-profile.ts). Later runs go through.

/**
 * `base` whose setups number `at` (1 = the first) never resolve: the object dies after it stored
 * the work (a delivered message, an answer) and before the execution runs on. Counted across
 * instances (module state outlives a reset), so the setup after the reset goes through.
 */
function setupHangs(base: AgentProfile, at: number[]) {
  const state = { setups: 0, hung: 0 }
  const profile: AgentProfile = {
    setup(e) {
      if (!at.includes(++state.setups)) return base.setup(e)
      state.hung++
      return new Promise(() => undefined)
    },
  }
  return { profile, state }
}

/** Waits (bounded) until `hang` has hung `n` setups. */
async function hungSetups(hang: ReturnType<typeof setupHangs>, n: number) {
  for (let i = 0; i < 2000 && hang.state.hung < n; i++) await new Promise(r => setTimeout(r, 10))
  expect(hang.state.hung).toBe(n)
}

const byAlarm = hangingOnce(5)
const byRequest = hangingOnce(5)
const abortedThenReset = hangingOnce(5)
const beforeStart = setupHangs(appendixProfile(), [1])
// The resume after the answer (setup 2) and the one after the approval (setup 4, after the reset's setup 3).
const beforeResume = setupHangs(appendixProfile({ askFirst: true, approveRunJs: true }), [2, 4])
let ana: string

beforeAll(async () => {
  // A long tick: the alarm the message set stays pending until the test runs it.
  const agents = {
    byAlarm: byAlarm.profile,
    byRequest: byRequest.profile,
    abortedThenReset: abortedThenReset.profile,
    beforeStart: beforeStart.profile,
    beforeResume: beforeResume.profile,
  }
  configureEdge({ agents, alarm: { tickMs: 600_000 } })
  ana = await token('ana')
})

/** Starts the appendix on `profile` and waits until its model hangs. */
async function startAndHang(profile: string, hang: ReturnType<typeof hangingOnce>) {
  const s = await createSession(ana, profile)
  await uploadSeason(ana, s.id)
  await expectJson(call('POST', `/sessions/${s.id}/messages`, ana, { text: APPENDIX_INSTRUCTIONS }), 202)
  for (let i = 0; i < 2000 && !hang.state.reached; i++) await new Promise(r => setTimeout(r, 10))
  expect(hang.state.reached).toBe(true)
  return s
}

/** Starts the appendix on `profile`, waits until its model hangs, then resets every object. */
async function startAndEvict(profile: string, hang: ReturnType<typeof hangingOnce>) {
  const s = await startAndHang(profile, hang)
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
  expect(executions.map(e => [e.id, e.status])).toEqual([['e0001', 'completed']])
  expect(all.filter(e => e.type === 'execution-end').map(e => (e as any).status)).toEqual(['completed'])
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

/**
 * Runs the object's alarm until none is set (each run waits for the work a bounded time, then sets
 * the next): what the runtime does on its own, with no request in between.
 */
async function alarmsUntilQuiet(stub: DurableObjectStub) {
  let runs = 0
  while (await runDurableObjectAlarm(stub)) expect(++runs).toBeLessThan(20)
  expect(runs).toBeGreaterThan(0)
}

/** Resets every object and runs the session's alarms until none is set: it ends idle; its events, contiguous. */
async function resetAndSettle(id: string) {
  await abortAllDurableObjects()
  const stub = env.SESSIONS.getByName(id)
  await alarmsUntilQuiet(stub)
  expect(await storedStatus(stub, id)).toBe('idle')
  const all = await events(ana, id)
  expectContiguous(all)
  return all
}

/** The status the record has now, read from the object's storage (a request could nudge the session). */
async function storedStatus(stub: DurableObjectStub, id: string): Promise<string> {
  return runInDurableObject(stub, async (_o, state) => {
    const meta = await durableObjectStore(state.storage).load('sessions', `session/${id}`)
    const record = meta.entries.find(e => e.path === '/session.json')
    return record?.kind === 'file' ? (JSON.parse(new TextDecoder().decode(record.data)) as SessionRecord).status : 'missing'
  })
}

const ends = (all: Awaited<ReturnType<typeof events>>) => all.filter(e => e.type === 'execution-end').map(e => (e as any).status)

describe('a session object reset right after it acknowledged a request', () => {
  for (const point of ['at once', 'after delivery, before the execution exists'] as const) {
    it(`a message (202), reset ${point}: the alarm alone runs it to the end`, async () => {
      const s = await createSession(ana, point === 'at once' ? 'appendix' : 'beforeStart')
      await uploadSeason(ana, s.id)
      await expectJson(call('POST', `/sessions/${s.id}/messages`, ana, { text: APPENDIX_INSTRUCTIONS }), 202)
      if (point !== 'at once') await hungSetups(beforeStart, 1)
      const all = await resetAndSettle(s.id)
      // One execution, started once (a start the reset cut short is continued, not started again).
      expect(all.filter(e => e.type === 'execution-start' && !(e as any).resumed)).toHaveLength(1)
      expect(ends(all)).toEqual(['completed'])
      const done = completions(all)
      expect(new Set(done).size).toBe(done.length)
      const messages = await expectJson<any[]>(call('GET', `/sessions/${s.id}/messages`, ana), 200)
      expect(messages.map(m => [m.state, m.executionId])).toEqual([['delivered', 'e0001']])
    })
  }

  it('an answer (202), reset before the execution resumes: the alarm alone resumes it with the answer; an approval the same', async () => {
    const s = await createSession(ana, 'beforeResume')
    await uploadSeason(ana, s.id)
    await expectJson(call('POST', `/sessions/${s.id}/messages`, ana, { text: APPENDIX_INSTRUCTIONS }), 202)
    expect(await waitStatus(ana, s.id, ['waiting_input'])).toBe('waiting_input')
    const [question] = await expectJson<any[]>(call('GET', `/sessions/${s.id}/pending`, ana), 200)
    await expectJson(call('POST', `/sessions/${s.id}/pending/${question.id}`, ana, { answer: 'Season One' }), 202)
    await hungSetups(beforeResume, 1)
    await abortAllDurableObjects()
    await alarmsUntilQuiet(env.SESSIONS.getByName(s.id))
    expect(await storedStatus(env.SESSIONS.getByName(s.id), s.id)).toBe('waiting_approval')
    const [approval] = await expectJson<any[]>(call('GET', `/sessions/${s.id}/pending`, ana), 200)
    expect(approval).toMatchObject({ kind: 'approval', toolName: 'run_js' })
    await expectJson(call('POST', `/sessions/${s.id}/pending/${approval.id}`, ana, { decision: 'always' }), 202)
    await hungSetups(beforeResume, 2)
    await abortAllDurableObjects()
    await alarmsUntilQuiet(env.SESSIONS.getByName(s.id))
    expect(await storedStatus(env.SESSIONS.getByName(s.id), s.id)).toBe('idle')
    const all = await events(ana, s.id)
    expectContiguous(all)
    expect(all.find(e => e.type === 'tool-result' && (e as any).toolName === 'ask_user')).toMatchObject({
      ok: true,
      output: { answer: 'Season One' },
    })
    expect(all.filter(e => e.type === 'pending-answered')).toHaveLength(2)
    expect(ends(all)).toEqual(['suspended', 'suspended', 'completed'])
    const done = completions(all)
    expect(new Set(done).size).toBe(done.length)
  })

  it('an abort (202), reset before the run acts on it (its model hangs): the alarm alone ends the run interrupted', async () => {
    const s = await startAndHang('abortedThenReset', abortedThenReset)
    // The model hangs and hears no signal: the in-memory abort cannot end the run; only the stored request can.
    await expectJson(call('POST', `/sessions/${s.id}/abort`, ana), 202)
    const before = await events(ana, s.id)
    const all = await resetAndSettle(s.id)
    expect(ends(all)).toEqual(['interrupted'])
    // The abort stands after the reset: no step is completed after it.
    expect(completions(all)).toEqual(completions(before))
    const executions = await expectJson<any[]>(call('GET', `/sessions/${s.id}/executions`, ana), 200)
    expect(executions.map(e => [e.id, e.status])).toEqual([['e0001', 'interrupted']])
  })
})
