import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { scriptAppendixProfile } from '../../fixtures/script-appendix/profile.js'
import { APPENDIX_INSTRUCTIONS } from '../../fixtures/script-appendix/task.js'
import { memoryStore } from '../../src/index.js'
import { createSessionApp, createSessionHost, mintToken, type SessionHost } from '../../src/session/index.js'
import { createSessionClient, SessionApiError, type ObservedEvent, type SessionClient } from '../../src/client/index.js'
import { expectContiguous, season } from '../session/harness.js'
import { listen } from '../session/http-client.js'

// agent-vfs/client against a real session host over real HTTP (@hono/node-server on loopback).
const secret = 'test-secret-test-secret-test-secret-0123'
let host: SessionHost
let server: Awaited<ReturnType<typeof listen>>
let ana: SessionClient
let bob: SessionClient
/** How often bob's client asked for its token: once per request (getToken). */
let bobTokenCalls = 0

beforeAll(async () => {
  host = createSessionHost({
    store: memoryStore(),
    agents: { appendix: scriptAppendixProfile(), asking: scriptAppendixProfile({ askFirst: true, approveRunJs: true }) },
    pollMs: 20,
  })
  server = await listen(createSessionApp(host, { auth: { secret }, maxUploadBytes: 2_000_000, heartbeatMs: 200 }).fetch)
  ana = createSessionClient({ baseUrl: server.url, token: await mintToken(secret, 'ana') })
  const bobToken = await mintToken(secret, 'bob')
  bob = createSessionClient({ baseUrl: `${server.url}/`, getToken: () => (bobTokenCalls++, bobToken) })
})
afterAll(async () => {
  await host.stop()
  await server.close()
})

/** Events until `stop` says so (bounded by the test's timeout). */
async function collect(client: SessionClient, id: string, stop: (e: ObservedEvent) => boolean, after = 0): Promise<ObservedEvent[]> {
  const out: ObservedEvent[] = []
  for await (const e of client.observe(id, { after })) {
    out.push(e)
    if (stop(e)) break
  }
  return out
}

/** Never run: what tsc (tsconfig.test.json) must refuse about the typed calls. */
export function typeChecks(client: SessionClient) {
  // @ts-expect-error the session id is required
  void client.api.getSession()
  // @ts-expect-error a message needs its text
  void client.api.sendMessage({ params: { id: 's1' }, body: {} })
  // @ts-expect-error an answer is a decision or an answer
  void client.api.answerPending({ params: { id: 's1', pendingId: 'e0001-p1' }, body: { decision: 'maybe' } })
  // @ts-expect-error no such route
  void client.api.nowhere
  // The answer's type is the route's: a session's status is one of five.
  void client.api
    .getSession({ params: { id: 's1' } })
    .then(s => s.status satisfies 'idle' | 'running' | 'waiting_input' | 'waiting_approval' | 'closed')
}

describe('agent-vfs/client', () => {
  it('typed calls: create, list, get; errors are SessionApiError with the API status, code and message', async () => {
    const session = await ana.api.createSession({ body: { profile: 'appendix', title: 'client' } })
    expect(session.status).toBe('idle')
    const page = await ana.api.listSessions({ query: { limit: 10 } })
    expect(page.items.map(s => s.id)).toContain(session.id)
    expect((await ana.api.getSession({ params: { id: session.id } })).title).toBe('client')
    // Another owner's session is not found, as the API says.
    const notFound = await bob.api.getSession({ params: { id: session.id } }).catch(e => e)
    expect(notFound).toBeInstanceOf(SessionApiError)
    expect(notFound).toMatchObject({ status: 404, code: 'not-found' })
    expect(bobTokenCalls).toBe(1)
    const invalid = await ana.api.createSession({ body: { profile: '' } }).catch(e => e)
    expect(invalid).toMatchObject({ status: 400, code: 'invalid' })
    expect(invalid.message).toMatch(/profile/)
    const noToken = createSessionClient({ baseUrl: server.url })
    expect(await noToken.api.listSessions().catch(e => e)).toMatchObject({ status: 401 })
    const down = createSessionClient({ baseUrl: 'http://127.0.0.1:1', token: 'x' })
    const network = await down.api.listSessions().catch(e => e)
    expect(network).toMatchObject({ status: 0, code: 'network', retryable: true })
  })

  it('uploads with progress, lists, downloads (bounded), deletes; a route that answers bytes hands back the Response', async () => {
    const { id } = await ana.api.createSession({ body: { profile: 'appendix' } })
    const big = new Uint8Array(300_000).map((_, i) => i % 251)
    const progress: number[] = []
    const written = await ana.upload(
      id,
      [
        { path: 'a.md', data: '# A' },
        { path: 'sub/big.bin', data: big },
      ],
      {
        onProgress: p => progress.push(p.loaded / p.total),
      },
    )
    expect(written.paths).toEqual(['/context/a.md', '/context/sub/big.bin'])
    expect(progress.length).toBeGreaterThan(3)
    expect(progress.at(-1)).toBe(1)
    expect(progress).toEqual([...progress].sort((a, b) => a - b))
    await ana.upload(id, [{ path: 'notes.txt', data: new Blob(['hello']) }], { dir: '/work' })
    const files = await ana.api.listFiles({ params: { id }, query: { prefix: '/context' } })
    expect(files.map(f => f.path).sort()).toEqual(['/context/a.md', '/context/sub/big.bin'])
    const down = await ana.download(id, '/context/sub/big.bin')
    // Compared as one buffer: toEqual over 300,000 elements takes seconds on a busy machine.
    expect(Buffer.compare(down.bytes, big)).toBe(0)
    expect(down.etag).toMatch(/^"v\d+-300000"$/)
    expect((await ana.download(id, '/work/notes.txt')).text()).toBe('hello')
    expect(await ana.download(id, '/context/sub/big.bin', { maxBytes: 1000 }).catch(e => e)).toMatchObject({ code: 'response-too-large' })
    const raw = await ana.api.getFile({ params: { id }, query: { path: '/context/a.md' }, headers: { range: 'bytes=0-0' } })
    expect(raw.status).toBe(206)
    expect(await raw.text()).toBe('#')
    await ana.api.putFile({ params: { id }, query: { path: '/work/x.bin' }, body: new Uint8Array([1, 2, 3]) })
    expect((await ana.download(id, '/work/x.bin')).bytes).toEqual(new Uint8Array([1, 2, 3]))
    await ana.api.deleteFile({ params: { id }, query: { path: '/work/x.bin' } })
    expect(await ana.download(id, '/work/x.bin').catch(e => e)).toMatchObject({ status: 404 })
  })

  it('runs a job with a question and an approval: observe yields every event once, in order, across a dropped connection', async () => {
    const { id } = await ana.api.createSession({ body: { profile: 'asking' } })
    await ana.upload(
      id,
      Object.entries(season()).map(([path, data]) => ({ path, data })),
    )
    await ana.api.sendMessage({ params: { id }, body: { text: APPENDIX_INSTRUCTIONS } })
    // The first loop ends at the question (as a page that closes would); the second resumes after it.
    const first = await collect(ana, id, e => e.type === 'question')
    const question = first.at(-1) as Extract<ObservedEvent, { type: 'question' }>
    await ana.api.answerPending({ params: { id, pendingId: question.pendingId }, body: { answer: 'Season One' } })
    const events: ObservedEvent[] = [...first]
    for await (const e of ana.observe(id, { after: (first.at(-1) as { seq: number }).seq })) {
      events.push(e)
      if (e.type === 'approval-required')
        await ana.api.answerPending({ params: { id, pendingId: e.pendingId }, body: { decision: 'always' } })
      if (e.type === 'execution-end' && e.status !== 'suspended') break
    }
    expectContiguous(events as never)
    expect(events.at(-1)).toMatchObject({ type: 'execution-end', status: 'completed' })
    const stored = await ana.api.listEvents({ params: { id }, query: { limit: 1000 } })
    expect(stored.events.map(e => e.seq).slice(0, events.length)).toEqual(events.map(e => (e as { seq: number }).seq))
    const executions = await ana.api.listExecutions({ params: { id } })
    expect(executions[0]!.status).toBe('completed')
  })

  it('observe ends quietly on abort and throws what no retry mends (404), at once', async () => {
    const { id } = await ana.api.createSession({ body: { profile: 'appendix' } })
    const stop = new AbortController()
    const seen: ObservedEvent[] = []
    const loop = (async () => {
      for await (const e of ana.observe(id, { signal: stop.signal })) seen.push(e)
    })()
    await new Promise(r => setTimeout(r, 300))
    stop.abort()
    await loop
    expect(seen.map(e => e.type)).toEqual(['session-created'])
    const missing = (async () => {
      for await (const _ of bob.observe(id)) void _
    })()
    await expect(missing).rejects.toMatchObject({ status: 404, code: 'not-found' })
  })
})
