import { existsSync } from 'node:fs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { APPENDIX_INSTRUCTIONS } from '../../fixtures/script-appendix/task.js'
import { groupAlive } from '../../scripts/wrangler-local.js'
import { readSse } from '../session/http-client.js'
import { season } from '../session/harness.js'
import { multipartWith, REFUSED_PART_NAMES } from '../session/multipart-names.js'
import { streamRequest } from '../session/oversized.js'
import { uploadForm } from '../session/route-requests.js'
import { processesMentioning, startWorker, type WranglerDev } from '../wrangler-dev/harness.js'

// The edge Worker under a real `wrangler dev` on loopback (test/wrangler-dev/harness.ts). At most one
// wrangler runs at a time here: the machine is small and shared.

describe('wrangler dev without the D1 migration', () => {
  let dev: WranglerDev
  beforeAll(async () => {
    dev = await startWorker({ migrate: false })
  }, 240_000)
  afterAll(() => dev?.stop())

  it('/d1 answers 503 with a JSON error naming `wrangler d1 migrations apply`, not a bare 500', async () => {
    for (const [method, body] of [['GET'], ['PUT', 'x']] as const) {
      const res = await fetch(`${dev.url}/d1/alice/file/a.md`, { method, ...(body ? { body } : {}) })
      expect(res.status, method).toBe(503)
      const json = (await res.json()) as { error: { code: string; message: string } }
      expect(json.error.code).toBe('ESTORE')
      expect(json.error.message).toMatch(/wrangler d1 migrations apply <database>`, with --local under wrangler dev/)
    }
  })

  it('the session routes answer a JSON error naming the migration too', async () => {
    const auth = { authorization: `Bearer ${await dev.token('ana')}`, 'content-type': 'application/json' }
    for (const [method, path, body] of [
      ['GET', '/sessions'],
      ['POST', '/sessions', { profile: 'appendix' }],
    ] as const) {
      const res = await fetch(`${dev.url}${path}`, { method, headers: auth, ...(body ? { body: JSON.stringify(body) } : {}) })
      const text = await res.text()
      expect(res.status, `${method} ${path}: ${text}`).toBeGreaterThanOrEqual(500)
      expect(JSON.parse(text).error.message, `${method} ${path}`).toMatch(/wrangler d1 migrations apply/)
    }
  })

  it('the Durable Object file routes work meanwhile', async () => {
    expect((await fetch(`${dev.url}/ws/alice/file/a.md`, { method: 'PUT', body: 'x' })).status).toBe(200)
    expect(await (await fetch(`${dev.url}/ws/alice/file/a.md`)).text()).toBe('x')
  })

  it('the JWT secret reaches the Worker without appearing on any command line', async () => {
    expect(processesMentioning(dev.persistTo).length).toBeGreaterThan(0)
    expect(processesMentioning(dev.secret)).toEqual([])
    const res = await fetch(`${dev.url}/sessions`, { headers: { authorization: `Bearer ${await dev.token()}` } })
    expect(res.status).not.toBe(401)
  })

  it('stop() ends wrangler and its workerd processes and removes the state folder', async () => {
    expect(groupAlive(dev.pid)).toBe(true)
    expect(existsSync(dev.persistTo)).toBe(true)
    await dev.stop()
    expect(groupAlive(dev.pid)).toBe(false)
    expect(existsSync(dev.persistTo)).toBe(false)
    await expect(fetch(dev.url)).rejects.toThrow()
  }, 60_000)
})

describe('wrangler dev: a session end to end over loopback', () => {
  let dev: WranglerDev
  let ana: string
  beforeAll(async () => {
    dev = await startWorker()
    ana = await dev.token('ana')
  }, 240_000)
  afterAll(() => dev?.stop())

  const call = (method: string, path: string, token: string | undefined, body?: unknown) =>
    fetch(`${dev.url}${path}`, {
      method,
      headers: {
        ...(token ? { authorization: `Bearer ${token}` } : {}),
        ...(body !== undefined && !(body instanceof FormData) ? { 'content-type': 'application/json' } : {}),
      },
      ...(body !== undefined ? { body: body instanceof FormData ? body : JSON.stringify(body) } : {}),
    })

  it('creates, uploads the season, runs the appendix while an SSE stream follows it, lists; other owners see nothing', async () => {
    expect((await call('GET', '/sessions', undefined)).status).toBe(401)
    const created = await call('POST', '/sessions', ana, { profile: 'appendix', title: 'Season 1' })
    expect(created.status, await created.clone().text()).toBe(201)
    const { id } = (await created.json()) as { id: string }

    const files = season()
    const uploaded = await call('POST', `/sessions/${id}/files?dir=/context`, ana, uploadForm(files))
    expect(uploaded.status, await uploaded.clone().text()).toBe(201)

    const stream = await call('GET', `/sessions/${id}/stream`, ana)
    expect(stream.status).toBe(200)
    expect((await call('POST', `/sessions/${id}/messages`, ana, { text: APPENDIX_INSTRUCTIONS })).status).toBe(202)
    const seen = await readSse(stream, m => m.event === 'execution-end')
    const events = seen.filter(m => m.id !== undefined)
    // Exactly the log, in order, from the first event.
    expect(events.map(m => Number(m.id))).toEqual(events.map((_, i) => i + 1))
    expect(JSON.parse(events[events.length - 1].data!)).toMatchObject({ type: 'execution-end', status: 'completed' })

    const listed = (await (await call('GET', `/sessions/${id}/files`, ana)).json()) as Array<{ path: string }>
    expect(listed.map(f => f.path)).toEqual(expect.arrayContaining(Object.keys(files).map(p => `/context/${p}`)))
    expect(listed.some(f => f.path.startsWith('/outputs/'))).toBe(true)
    const sessions = (await (await call('GET', '/sessions', ana)).json()) as { items: Array<{ id: string; owner: string }> }
    expect(sessions.items.map(s => [s.id, s.owner])).toEqual([[id, 'ana']])

    const bob = await dev.token('bob')
    expect(((await (await call('GET', '/sessions', bob)).json()) as { items: unknown[] }).items).toEqual([])
    expect((await call('GET', `/sessions/${id}`, bob)).status).toBe(404)
    expect((await call('GET', `/sessions/${id}/events`, bob)).status).toBe(404)
  }, 180_000)

  it('limits at the door: oversized bodies, with and without Content-Length, are 413 { error } (never a reset); backslash names are 400', async () => {
    const MiB = 1024 * 1024
    const { id } = (await (await call('POST', '/sessions', ana, { profile: 'appendix' })).json()) as { id: string }
    const auth = { authorization: `Bearer ${ana}` }
    const boundary = 'b0undary'
    const cases = [
      {
        path: `/sessions/${id}/file?path=/context/big.bin`,
        method: 'PUT',
        total: 21 * MiB,
        limit: 20 * MiB,
        prefix: '',
        type: 'application/octet-stream',
      },
      {
        path: `/sessions/${id}/files`,
        method: 'POST',
        total: 21 * MiB,
        limit: 20 * MiB,
        prefix: `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.md"\r\n\r\n`,
        type: `multipart/form-data; boundary=${boundary}`,
      },
      {
        path: `/sessions/${id}/messages`,
        method: 'POST',
        total: 64 * MiB,
        limit: MiB,
        prefix: '{"text":"',
        type: 'application/json',
      },
    ]
    for (const c of cases) {
      for (const contentLength of [true, false]) {
        const answer = await streamRequest(dev.url + c.path, c.method, { ...auth, 'content-type': c.type }, c.total, {
          contentLength,
          prefix: c.prefix,
        })
        expect([c.method, c.path, contentLength, answer.error, answer.status]).toEqual([c.method, c.path, contentLength, undefined, 413])
        expect(JSON.parse(answer.text).error.message).toContain(String(c.limit))
      }
    }
    for (const name of REFUSED_PART_NAMES) {
      const { body, contentType } = multipartWith(name, '{}')
      // wrangler dev may restart the Worker mid-request on a busy machine (503 to a POST): ask again.
      let res = await fetch(`${dev.url}/sessions/${id}/files`, {
        method: 'POST',
        headers: { ...auth, 'content-type': contentType },
        body,
      })
      for (let i = 0; i < 5 && res.status === 503; i++)
        res = await fetch(`${dev.url}/sessions/${id}/files`, {
          method: 'POST',
          headers: { ...auth, 'content-type': contentType },
          body,
        })
      expect([name, res.status]).toEqual([name, 400])
    }
    expect(await (await call('GET', `/sessions/${id}/files?prefix=/context`, ana)).json()).toEqual([])
    expect(await (await call('GET', `/sessions/${id}/messages`, ana)).json()).toEqual([])
  }, 180_000)
})
