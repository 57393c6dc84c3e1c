import { afterAll, describe, expect, it } from 'vitest'
import { installTracing, named } from '../telemetry/otel.js'
import { call, configureEdge, createSession, expectJson, token, uploadSeason, waitStatus } from './edge-harness.js'

// The Worker: budgets in the session's Durable Object, usage per session (from the object) and per
// owner (from D1), and a server span per request.
describe('usage, budgets and request spans on the Worker', () => {
  const tracing = installTracing()
  afterAll(() => tracing.uninstall())

  it('an execution budget stops the run; GET /sessions/{id}/usage and GET /usage report it; requests are spans', async () => {
    configureEdge({ budgets: { execution: { modelCalls: 3 } } })
    const ana = await token('usage-ana')
    const s = await createSession(ana)
    await uploadSeason(ana, s.id)
    await expectJson(call('POST', `/sessions/${s.id}/messages`, ana, { text: 'Write the appendix' }), 202)
    await waitStatus(ana, s.id, ['idle'])
    const [e] = await expectJson<Array<{ status: string; modelCalls: number; error?: { code: string } }>>(
      call('GET', `/sessions/${s.id}/executions`, ana),
      200,
    )
    expect(e).toMatchObject({ status: 'interrupted', modelCalls: 3, error: { code: 'budget-exceeded' } })
    const usage = await expectJson(call('GET', `/sessions/${s.id}/usage`, ana), 200)
    expect(usage).toMatchObject({ sessionId: s.id, total: { modelCalls: 3 } })
    expect(usage.total.totalTokens).toBeGreaterThan(0)
    expect(await expectJson(call('GET', '/usage', ana), 200)).toMatchObject({
      owner: 'usage-ana',
      total: { modelCalls: 3 },
      sessions: [{ id: s.id }],
    })
    expect((await call('GET', `/sessions/${s.id}/usage`, await token('usage-bob'))).status).toBe(404)
    expect((await call('GET', '/usage')).status).toBe(401)

    const spans = tracing.spans()
    const [created] = named(spans, 'POST /sessions')
    expect(created.attributes).toMatchObject({ 'http.route': '/sessions', 'http.response.status_code': 201 })
    expect(named(spans, 'GET /usage')[0]?.attributes['http.response.status_code']).toBe(200)
    expect(named(spans, 'invoke_agent agent-vfs').length).toBeGreaterThan(0)
  })
})
