import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { memoryStore } from '../../src/index.js'
import { createSessionApp, createSessionHost, DEFAULT_OWNER_QUOTA, mintToken, type SessionHost } from '../../src/session/index.js'
import { gatedAppendix } from '../session/harness.js'
import { listen } from '../session/http-client.js'

// maxRunningExecutions: a message that would start a new execution over the owner's cap is refused (429), atomically.
const gated = gatedAppendix(2)
const secret = 'test-secret-test-secret-test-secret-0123'
let host: SessionHost
let server: Awaited<ReturnType<typeof listen>>
beforeAll(async () => {
  host = createSessionHost({
    store: memoryStore(),
    agents: { gated: gated.profile },
    pollMs: 20,
    quota: { maxRunningExecutions: 2 },
  })
  server = await listen(createSessionApp(host, { auth: { secret } }).fetch)
})
afterAll(async () => {
  gated.open()
  await host.stop()
  await server.close()
})

async function call(method: string, path: string, owner: string, body?: unknown): Promise<Response> {
  const headers = { authorization: `Bearer ${await mintToken(secret, owner)}`, 'content-type': 'application/json' }
  return fetch(server.url + path, { method, headers, ...(body !== undefined ? { body: JSON.stringify(body) } : {}) })
}
const create = async (owner: string) => ((await (await call('POST', '/sessions', owner, { profile: 'gated' })).json()) as { id: string }).id

describe('maxRunningExecutions', () => {
  it('eight messages at once to eight idle sessions of one owner: exactly two start, six are 429 and not stored', async () => {
    const ids = await Promise.all(Array.from({ length: 8 }, () => create('ana')))
    const answers = await Promise.all(ids.map(id => call('POST', `/sessions/${id}/messages`, 'ana', { text: 'go' })))
    expect(answers.map(r => r.status).sort()).toEqual([202, 202, 429, 429, 429, 429, 429, 429])
    const refused = ids.filter((_, i) => answers[i].status === 429)
    const started = ids.filter((_, i) => answers[i].status === 202)
    const body = (await answers[ids.indexOf(refused[0])].json()) as { error: { code: string; message: string } }
    expect(body.error.code).toBe('too-many-running')
    expect(body.error.message).toContain('2')
    for (const id of refused) expect(await host.messages(id)).toEqual([])
    // A follow-up to a running session queues as usual; another owner is not affected.
    await gated.reached
    expect((await call('POST', `/sessions/${started[0]}/messages`, 'ana', { text: 'and then' })).status).toBe(202)
    const other = await create('bob')
    expect((await call('POST', `/sessions/${other}/messages`, 'bob', { text: 'go' })).status).toBe(202)
    // Once the runs end, the slots are free again.
    gated.open()
    for (const id of [...started, other]) await host.settled(id)
    const later = await Promise.all(refused.slice(0, 3).map(id => call('POST', `/sessions/${id}/messages`, 'ana', { text: 'now' })))
    expect(later.map(r => r.status).sort()).toEqual([202, 202, 429])
    for (const id of refused) await host.settled(id)
  }, 120_000)

  it('the default quotas are what docs/limits.md says', () => {
    expect(DEFAULT_OWNER_QUOTA).toEqual({ maxSessions: 100, maxBytes: 1024 ** 3, maxRunningExecutions: 4, maxStreams: 50 })
  })
})
