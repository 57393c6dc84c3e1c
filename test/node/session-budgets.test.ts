import { describe, expect, it } from 'vitest'
import { memoryStore } from '../../src/index.js'
import { scriptedModel, type Budget } from '../../src/agent/index.js'
import { createSessionApp, createSessionHost, mintToken, type AgentProfile, type SessionHostOptions } from '../../src/session/index.js'
import { until } from '../session/harness.js'

const secret = 'test-secret-test-secret-test-secret-0123'
const endless = { maxIdleWindows: 1000, maxStepsPerWindow: 1000, maxRetriesPerCheckpoint: 1000 }

/** A profile whose model lists files forever (only a budget ends it); `budget()` is read at every run. */
function lister(budget: () => Budget | undefined = () => undefined): AgentProfile {
  return {
    setup: () => {
      const b = budget()
      return {
        model: scriptedModel(() => ({ toolCalls: [{ toolName: 'ls', input: { path: '/' } }] })),
        limits: endless,
        ...(b ? { budget: b } : {}),
      }
    },
  }
}

function host(options: Partial<SessionHostOptions> & Pick<SessionHostOptions, 'agents'>) {
  const h = createSessionHost({ store: memoryStore(), leaseMs: 2_000, ...options })
  const app = createSessionApp(h, { auth: { secret } })
  const get = async (path: string, owner = 'ana') =>
    app.request(path, { headers: { authorization: `Bearer ${await mintToken(secret, owner)}` } })
  return { host: h, get }
}

describe('session budgets and usage', () => {
  it("the host's execution budget stops a run (budget-exceeded); the profile's cannot lift it; usage on the API", async () => {
    const budget: Budget | undefined = { modelCalls: 10 }
    const { host: h, get } = host({ agents: { a: lister(() => budget) }, budgets: { execution: { modelCalls: 3 } } })
    const s = await h.create({ owner: 'ana', profile: 'a' })
    await h.send(s.id, { text: 'go' })
    expect(await until(h, s.id, ['idle'])).toBe('idle')
    const [e] = await h.executions(s.id)
    expect(e).toMatchObject({
      status: 'interrupted',
      modelCalls: 3,
      error: { code: 'budget-exceeded' },
      budgetExceeded: { budget: 'modelCalls', limit: 3 },
    })
    const events = await h.events(s.id)
    expect(events.filter(x => x.type === 'budget-exceeded')).toHaveLength(1)
    expect(events.filter(x => x.type === 'model-call')).toHaveLength(3)

    const usage = await (await get(`/sessions/${s.id}/usage`)).json()
    expect(usage).toMatchObject({ sessionId: s.id, total: { modelCalls: 3, toolCalls: 3 }, executions: [{ id: e.id, modelCalls: 3 }] })
    expect(usage.total.totalTokens).toBe(e.usage.totalTokens)
    expect(usage.total.totalTokens).toBeGreaterThan(0)
    // Another owner's session is not found; the owner's view adds up the sessions.
    expect((await get(`/sessions/${s.id}/usage`, 'bob')).status).toBe(404)
    expect(await (await get('/usage')).json()).toMatchObject({ owner: 'ana', total: { modelCalls: 3 }, sessions: [{ id: s.id }] })
    expect(await (await get('/usage', 'bob')).json()).toMatchObject({ owner: 'bob', total: { modelCalls: 0 }, sessions: [] })

    // The host's budget is the ceiling: a resume under it stops again at once.
    await h.resume(s.id)
    await until(h, s.id, ['idle'])
    expect((await h.executions(s.id))[0]).toMatchObject({ status: 'interrupted', modelCalls: 3 })
  })

  it('a profile budget under an unlimited host: raised, the run resumes and counts on', async () => {
    let budget: Budget = { modelCalls: 2 }
    const { host: h } = host({ agents: { a: lister(() => budget) } })
    const s = await h.create({ owner: 'ana', profile: 'a' })
    await h.send(s.id, { text: 'go' })
    await until(h, s.id, ['idle'])
    expect((await h.executions(s.id))[0]).toMatchObject({ status: 'interrupted', modelCalls: 2 })
    budget = { modelCalls: 4 }
    await h.resume(s.id)
    await until(h, s.id, ['idle'])
    expect((await h.executions(s.id))[0]).toMatchObject({ status: 'interrupted', modelCalls: 4, budgetExceeded: { limit: 4 } })
  })

  it("an owner's budget spans their sessions, and a deleted session's spending stays counted", async () => {
    const { host: h, get } = host({
      agents: { a: lister() },
      budgets: { execution: { modelCalls: 3 }, owner: { modelCalls: 5 } },
    })
    const one = await h.create({ owner: 'ana', profile: 'a' })
    await h.send(one.id, { text: 'go' })
    await until(h, one.id, ['idle'])
    const two = await h.create({ owner: 'ana', profile: 'a' })
    await h.send(two.id, { text: 'go' })
    await until(h, two.id, ['idle'])
    const [e2] = await h.executions(two.id)
    expect(e2).toMatchObject({
      status: 'interrupted',
      modelCalls: 2,
      budgetExceeded: { scope: 'owner', budget: 'modelCalls', limit: 5, used: 5 },
    })
    expect(e2.error!.message).toContain('owner budget of 5 model calls')
    expect((await (await get('/usage')).json()).total.modelCalls).toBe(5)
    // Bob has his own budget.
    const bobs = await h.create({ owner: 'bob', profile: 'a' })
    await h.send(bobs.id, { text: 'go' })
    await until(h, bobs.id, ['idle'])
    expect((await h.executions(bobs.id))[0]).toMatchObject({ modelCalls: 3, budgetExceeded: { scope: 'execution' } })
    // Deleting a session does not give its budget back.
    await h.delete(one.id)
    const after = await (await get('/usage')).json()
    expect(after.total.modelCalls).toBe(5)
    expect(after.sessions.map((x: { id: string }) => x.id)).toEqual([two.id])
    const three = await h.create({ owner: 'ana', profile: 'a' })
    await h.send(three.id, { text: 'go' })
    await until(h, three.id, ['idle'])
    expect((await h.executions(three.id))[0]).toMatchObject({ modelCalls: 0, budgetExceeded: { scope: 'owner' } })
  })

  it('the OpenAPI document lists the usage routes', async () => {
    const { get } = host({ agents: { a: lister() } })
    const doc = await (await get('/openapi.json')).json()
    expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(['/sessions/{id}/usage', '/usage']))
  })
})
