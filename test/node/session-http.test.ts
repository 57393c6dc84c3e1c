import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { sign } from 'hono/jwt'
import { scriptAppendixProfile } from '../../fixtures/script-appendix/profile.js'
import { APPENDIX_INSTRUCTIONS } from '../../fixtures/script-appendix/task.js'
import { memoryStore } from '../../src/index.js'
import { createSessionApp, createSessionHost, mintToken, sessionRoutes, type SessionHost } from '../../src/session/index.js'
import { gatedAppendix, season } from '../session/harness.js'
import { listen, rawRequest, readSse } from '../session/http-client.js'
import { requestFor, uploadForm } from '../session/route-requests.js'

const gated = gatedAppendix(5)
const secret = 'test-secret-test-secret-test-secret-0123'
let host: SessionHost
let server: Awaited<ReturnType<typeof listen>>
let ana: string
let bob: string

beforeAll(async () => {
  host = createSessionHost({
    store: memoryStore(),
    agents: {
      appendix: scriptAppendixProfile(),
      asking: scriptAppendixProfile({ askFirst: true, approveRunJs: true }),
      gated: gated.profile,
    },
    pollMs: 20,
  })
  server = await listen(createSessionApp(host, { auth: { secret }, maxUploadBytes: 200_000, heartbeatMs: 200 }).fetch)
  ana = await mintToken(secret, 'ana')
  bob = await mintToken(secret, 'bob')
})
afterAll(async () => {
  await host.stop()
  await server.close()
})

const call = (method: string, path: string, token: string | undefined, body?: unknown, headers: Record<string, string> = {}) =>
  fetch(server.url + path, {
    method,
    headers: {
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...(body !== undefined && !(body instanceof FormData) && !(body instanceof Uint8Array) ? { 'content-type': 'application/json' } : {}),
      ...headers,
    },
    ...(body !== undefined
      ? {
          body:
            body instanceof FormData || body instanceof Uint8Array
              ? (body as BodyInit)
              : typeof body === 'string'
                ? body
                : JSON.stringify(body),
        }
      : {}),
  })

async function created(token = ana, profile = 'appendix'): Promise<string> {
  const res = await call('POST', '/sessions', token, { profile, title: 'http' })
  expect(res.status).toBe(201)
  return ((await res.json()) as { id: string }).id
}

async function waitStatus(id: string, statuses: string[]): Promise<string> {
  for (let i = 0; i < 3000; i++) {
    await host.settled(id)
    const s = (await (await call('GET', `/sessions/${id}`, ana)).json()) as { status: string }
    if (statuses.includes(s.status)) return s.status
    await new Promise(r => setTimeout(r, 20))
  }
  throw new Error('timeout')
}

describe('session HTTP API', () => {
  it('every route: no token or a bad token → 401; another owner → 404, and nothing changes', async () => {
    const id = await created()
    await call('PUT', `/sessions/${id}/file?path=/context/a.md`, ana, new TextEncoder().encode('mine'))
    const expired = await sign({ sub: 'ana', exp: Math.floor(Date.now() / 1000) - 10 }, secret, 'HS256')
    const forged = await sign({ sub: 'ana', exp: Math.floor(Date.now() / 1000) + 100 }, 'another-secret-another-secret-another', 'HS256')
    const none = await sign({ exp: Math.floor(Date.now() / 1000) + 100 }, secret, 'HS256')
    const names = Object.keys(sessionRoutes) as Array<keyof typeof sessionRoutes>
    expect(names.length).toBeGreaterThanOrEqual(20)
    for (const name of names) {
      for (const token of [undefined, expired, forged, none, 'not.a.jwt']) {
        const { method, path, body } = requestFor(name, id)
        const res = await call(method, path, token, body)
        expect([name, res.status]).toEqual([name, 401])
        expect(((await res.json()) as any).error.code).toBe('unauthorized')
      }
      if (!sessionRoutes[name].path.includes('{id}')) continue
      const { method, path, body } = requestFor(name, id)
      const res = await call(method, path, bob, body)
      expect([name, res.status]).toEqual([name, 404])
      expect(((await res.json()) as any).error).toMatchObject({ code: 'not-found' })
    }
    // Bob's list never shows Ana's session; Ana's session is untouched.
    expect(((await (await call('GET', '/sessions', bob)).json()) as any).items.map((s: any) => s.id)).not.toContain(id)
    const s = (await (await call('GET', `/sessions/${id}`, ana)).json()) as any
    expect(s.status).toBe('idle')
    expect(await (await call('GET', `/sessions/${id}/file?path=/context/a.md`, ana)).text()).toBe('mine')
    expect(((await (await call('GET', `/sessions/${id}/messages`, ana)).json()) as unknown[]).length).toBe(0)
  })

  it('bad bodies, hostile paths, oversized uploads → 4xx JSON errors, nothing written', async () => {
    const id = await created()
    const cases: Array<[string, string, unknown, number]> = [
      ['POST', '/sessions', '{"profile":', 400],
      ['POST', '/sessions', { profile: 7 }, 400],
      ['POST', '/sessions', { profile: 'appendix', admin: true }, 400],
      ['POST', '/sessions', { profile: 'nope' }, 400],
      ['POST', `/sessions/${id}/messages`, { text: '' }, 400],
      ['POST', `/sessions/${id}/messages`, { text: 'x', steer: 'yes' }, 400],
      ['POST', `/sessions/${id}/messages`, 'not json', 400],
      ['POST', `/sessions/${id}/pending/e0001-p1`, { decision: 'maybe' }, 400],
      ['POST', `/sessions/${id}/pending/../x`, { decision: 'approve' }, 404],
      ['GET', `/sessions/${id}/events?after=-1`, undefined, 400],
      ['GET', `/sessions/${id}/events?limit=100000`, undefined, 400],
      ['GET', '/sessions/../../etc/passwd', undefined, 404],
      ['GET', '/sessions/nope', undefined, 400],
      ['GET', `/sessions/s${'0'.repeat(32)}`, undefined, 404],
      ['PUT', `/sessions/${id}/file?path=/state/plan.json`, new Uint8Array([1]), 400],
      ['PUT', `/sessions/${id}/file?path=/context/../state/x`, new Uint8Array([1]), 400],
      ['PUT', `/sessions/${id}/file?path=/work/a%00b`, new Uint8Array([1]), 400],
      ['PUT', `/sessions/${id}/file?path=/context`, new Uint8Array([1]), 400],
      ['PUT', `/sessions/${id}/file?path=/etc/passwd`, new Uint8Array([1]), 400],
      ['PUT', `/sessions/${id}/file?path=/work/big.bin`, new Uint8Array(300_000), 413],
      ['POST', `/sessions/${id}/files`, uploadForm({ '../state/x.json': '{}' }), 400],
      ['POST', `/sessions/${id}/files?dir=/state`, uploadForm({ 'x.json': '{}' }), 400],
      ['POST', `/sessions/${id}/files`, uploadForm({ 'ok.md': 'fine', '/abs.md': 'x' }), 400],
      ['POST', `/sessions/${id}/files`, uploadForm({ 'big.md': 'x'.repeat(300_000) }), 413],
      ['POST', `/sessions/${id}/abort`, undefined, 409],
      ['POST', `/sessions/${id}/resume`, undefined, 409],
      ['GET', `/sessions/${id}/file?path=/context/missing.md`, undefined, 404],
      ['GET', `/sessions/${id}/executions/e0009`, undefined, 404],
    ]
    for (const [method, path, body, status] of cases) {
      if (status === 413) {
        const raw = body instanceof FormData ? new Request('http://x', { method: 'POST', body }) : undefined
        const bytes = raw ? new Uint8Array(await raw.arrayBuffer()) : (body as Uint8Array)
        const res = await rawRequest(
          server.url + path,
          method,
          { authorization: `Bearer ${ana}`, ...(raw ? { 'content-type': raw.headers.get('content-type')! } : {}) },
          bytes,
        )
        expect([method, path, res.status]).toEqual([method, path, 413])
        expect(JSON.parse(res.text).error.code).toBe('too-large')
        continue
      }
      const res = await call(method, path, ana, body)
      expect([method, path, res.status]).toEqual([method, path, status])
      expect(res.headers.get('content-type')).toMatch(/application\/json/)
      const error = ((await res.json()) as any).error
      expect(typeof error.code).toBe('string')
      expect(typeof error.message).toBe('string')
    }
    const files = (await (await call('GET', `/sessions/${id}/files`, ana)).json()) as unknown[]
    expect(files).toEqual([])
    expect(
      ((await (await call('GET', '/sessions?limit=100', ana)).json()) as any).items.filter((s: any) => s.profile !== 'appendix'),
    ).toEqual([])
  })

  it('uploads a folder (multipart with relative paths), lists, downloads with Range and a quoted ETag', async () => {
    const id = await created()
    const res = await call(
      'POST',
      `/sessions/${id}/files`,
      ana,
      uploadForm({ 'characters.md': '- A: B\n', 'episodes/episode-01.fountain': '# Episode 1: X Y\n' }),
    )
    expect([res.status, res.status === 201 || (await res.clone().text())]).toEqual([201, true])
    expect(((await res.json()) as any).paths).toEqual(['/context/characters.md', '/context/episodes/episode-01.fountain'])
    const list = (await (await call('GET', `/sessions/${id}/files?prefix=/context`, ana)).json()) as any[]
    expect(list.map(f => f.path)).toEqual(['/context/characters.md', '/context/episodes/episode-01.fountain'])
    const full = await call('GET', `/sessions/${id}/file?path=/context/episodes/episode-01.fountain`, ana)
    const etag = full.headers.get('etag')!
    expect(etag).toMatch(/^"v\d+-\d+"$/)
    expect(await full.text()).toBe('# Episode 1: X Y\n')
    const part = await call('GET', `/sessions/${id}/file?path=/context/episodes/episode-01.fountain`, ana, undefined, {
      range: 'bytes=2-8',
    })
    expect(part.status).toBe(206)
    expect(part.headers.get('content-range')).toBe('bytes 2-8/17')
    expect(await part.text()).toBe('Episode')
    const suffix = await call('GET', `/sessions/${id}/file?path=/context/characters.md`, ana, undefined, { range: 'bytes=-3' })
    expect(await suffix.text()).toBe(' B\n')
    expect((await call('GET', `/sessions/${id}/file?path=/context/characters.md`, ana, undefined, { range: 'bytes=100-' })).status).toBe(
      416,
    )
    expect(
      (
        await call('GET', `/sessions/${id}/file?path=/context/episodes/episode-01.fountain`, ana, undefined, {
          'if-none-match': etag,
        })
      ).status,
    ).toBe(304)
    expect((await call('DELETE', `/sessions/${id}/file?path=/context/characters.md`, ana)).status).toBe(200)
    expect((await call('GET', `/sessions/${id}/file?path=/context/characters.md`, ana)).status).toBe(404)
  })

  it('runs the appendix over HTTP: SSE with ids, reconnect with Last-Event-ID gets exactly the missing events', async () => {
    const id = await created(ana, 'asking')
    const form = new FormData()
    for (const [p, text] of Object.entries(season())) form.append('file', new Blob([text]), p)
    expect((await call('POST', `/sessions/${id}/files`, ana, form)).status).toBe(201)
    expect((await call('POST', `/sessions/${id}/messages`, ana, { text: APPENDIX_INSTRUCTIONS })).status).toBe(202)
    // First connection: read until the question, then drop.
    const first = await readSse(await call('GET', `/sessions/${id}/stream`, ana), m => m.event === 'question')
    const lastId = first.filter(m => m.id).at(-1)!.id!
    expect(await waitStatus(id, ['waiting_input'])).toBe('waiting_input')
    const [question] = (await (await call('GET', `/sessions/${id}/pending`, ana)).json()) as any[]
    expect((await call('POST', `/sessions/${id}/pending/${question.id}`, ana, { answer: 'Season One' })).status).toBe(202)
    expect(await waitStatus(id, ['waiting_approval'])).toBe('waiting_approval')
    const [approval] = (await (await call('GET', `/sessions/${id}/pending`, ana)).json()) as any[]
    expect((await call('POST', `/sessions/${id}/pending/${approval.id}`, ana, { decision: 'always' })).status).toBe(202)
    await waitStatus(id, ['idle'])
    // Reconnect with the last id seen: exactly the events after it, in order, then heartbeats.
    const second = await readSse(
      await call('GET', `/sessions/${id}/stream`, ana, undefined, { 'last-event-id': lastId }),
      m => m.comment?.startsWith('heartbeat') === true,
    )
    const ids = second.filter(m => m.id).map(m => Number(m.id))
    const stored = ((await (await call('GET', `/sessions/${id}/events?after=${lastId}`, ana)).json()) as any).events.map((e: any) => e.seq)
    expect(ids).toEqual(stored)
    expect(ids[0]).toBe(Number(lastId) + 1)
    const all = [...first.filter(m => m.id).map(m => Number(m.id)), ...ids]
    expect(all).toEqual(all.map((_, i) => i + 1))
    expect(second.some(m => m.event === 'execution-end' && JSON.parse(m.data!).status === 'completed')).toBe(true)
    const execs = (await (await call('GET', `/sessions/${id}/executions`, ana)).json()) as any[]
    expect(execs[0].status).toBe('completed')
    const one = (await (await call('GET', `/sessions/${id}/executions/e0001`, ana)).json()) as any
    expect(one.events.length).toBeGreaterThan(10)
    const out = await call('GET', `/sessions/${id}/file?path=/outputs/assets.json`, ana)
    expect(out.status).toBe(200)
    expect(JSON.parse(await out.text()).characters.length).toBeGreaterThan(0)
    // Close ends the stream; reopen; delete.
    const closing = readSse(await call('GET', `/sessions/${id}/stream?after=${all.at(-1)}`, ana), () => false)
    expect(((await (await call('POST', `/sessions/${id}/close`, ana)).json()) as any).status).toBe('closed')
    expect((await closing).filter(m => m.event).map(m => m.event)).toEqual(['session-closed'])
    expect((await call('POST', `/sessions/${id}/messages`, ana, { text: 'more' })).status).toBe(409)
    expect(((await (await call('POST', `/sessions/${id}/reopen`, ana)).json()) as any).status).toBe('idle')
    expect((await call('DELETE', `/sessions/${id}`, ana)).status).toBe(200)
    expect((await call('GET', `/sessions/${id}`, ana)).status).toBe(404)
  })

  it('aborts over HTTP and resumes', async () => {
    const id = await created(ana, 'gated')
    const form = new FormData()
    for (const [p, text] of Object.entries(season())) form.append('file', new Blob([text]), p)
    await call('POST', `/sessions/${id}/files`, ana, form)
    await call('POST', `/sessions/${id}/messages`, ana, { text: APPENDIX_INSTRUCTIONS })
    await gated.reached
    expect((await call('POST', `/sessions/${id}/abort`, ana)).status).toBe(202)
    gated.open()
    await waitStatus(id, ['idle'])
    expect(((await (await call('GET', `/sessions/${id}/executions`, ana)).json()) as any[])[0].status).toBe('interrupted')
    expect((await call('POST', `/sessions/${id}/messages`, ana, { text: 'Carry on, and keep it short.', steer: true })).status).toBe(202)
    await waitStatus(id, ['idle'])
    await host.settled(id)
    await waitStatus(id, ['idle'])
    const records = (await (await call('GET', `/sessions/${id}/executions`, ana)).json()) as any[]
    expect(records.map(e => [e.status, e.error])).toEqual([['completed', undefined]])
  })

  it('serves an OpenAPI document generated from the same schemas, listing every route', async () => {
    const res = await call('GET', '/openapi.json', undefined)
    expect(res.status).toBe(200)
    const doc = (await res.json()) as any
    for (const r of Object.values(sessionRoutes)) expect(doc.paths[r.path]?.[r.method], `${r.method} ${r.path}`).toBeDefined()
    expect(doc.components.schemas.SendMessage).toBeDefined()
  })
})
