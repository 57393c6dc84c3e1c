import { AsyncLocalStorage } from 'node:async_hooks'
import { afterAll, describe, expect, it } from 'vitest'
import type { Context } from '@opentelemetry/api'
import { memoryStore } from '../../src/index.js'
import { scriptedModel } from '../../src/agent/index.js'
import { createSessionApp, createSessionHost, mintToken } from '../../src/session/index.js'
import { until } from '../session/harness.js'
import { installTracing, named, parentOf } from '../telemetry/otel.js'

const secret = 'tracing-secret-tracing-secret-tracing-01'

describe('OpenTelemetry: session requests (Node)', () => {
  const tracing = installTracing(new AsyncLocalStorage<Context>())
  afterAll(() => tracing.uninstall())

  it('a server span per request (route, status); the execution a message starts is its child', async () => {
    const host = createSessionHost({
      store: memoryStore(),
      agents: {
        a: {
          setup: () => ({
            model: scriptedModel(v => (v.call === 0 ? { toolCalls: [{ toolName: 'ls', input: { path: '/' } }] } : { text: 'done' })),
          }),
        },
      },
    })
    const app = createSessionApp(host, { auth: { secret } })
    const auth = { authorization: `Bearer ${await mintToken(secret, 'ana')}`, 'content-type': 'application/json' }
    const created = await app.request('/sessions', { method: 'POST', headers: auth, body: JSON.stringify({ profile: 'a' }) })
    const { id } = (await created.json()) as { id: string }
    const sent = await app.request(`/sessions/${id}/messages`, { method: 'POST', headers: auth, body: JSON.stringify({ text: 'go' }) })
    expect(sent.status).toBe(202)
    await until(host, id, ['idle'])
    expect((await app.request(`/sessions/${id}`)).status).toBe(401)

    const spans = tracing.spans()
    const [create] = named(spans, 'POST /sessions')
    expect(create.attributes).toMatchObject({ 'http.request.method': 'POST', 'http.route': '/sessions', 'http.response.status_code': 201 })
    const [send] = named(spans, 'POST /sessions/:id/messages')
    expect(send.attributes).toMatchObject({
      'http.route': '/sessions/:id/messages',
      'http.response.status_code': 202,
      'url.path': `/sessions/${id}/messages`,
    })
    expect(send.kind).toBe(1) // SERVER
    const refused = spans.find(s => s.attributes['http.response.status_code'] === 401)
    expect(refused?.attributes['http.request.method']).toBe('GET')
    // session request → execution → model call / tool call
    const [execution] = named(spans, 'invoke_agent agent-vfs')
    expect(parentOf(execution)).toBe(send.spanContext().spanId)
    expect(execution.spanContext().traceId).toBe(send.spanContext().traceId)
    const [tool] = named(spans, 'execute_tool ls')
    expect(parentOf(tool)).toBe(execution.spanContext().spanId)
    expect(named(spans, 'chat ').every(c => parentOf(c) === execution.spanContext().spanId)).toBe(true)
    await host.stop()
  })
})
