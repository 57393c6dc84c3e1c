import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { scriptAppendixProfile } from '../../fixtures/script-appendix/profile.js'
import { memoryStore } from '../../src/index.js'
import { createSessionApp, createSessionHost, mintToken, type SessionHost } from '../../src/session/index.js'
import { listen } from '../session/http-client.js'
import { multipartWith, REFUSED_PART_NAMES } from '../session/multipart-names.js'
import { streamRequest } from '../session/oversized.js'

const MiB = 1024 * 1024
const secret = 'test-secret-test-secret-test-secret-0123'
let host: SessionHost
let server: Awaited<ReturnType<typeof listen>>
let token: string
let id: string

beforeAll(async () => {
  host = createSessionHost({ store: memoryStore(), agents: { appendix: scriptAppendixProfile() }, pollMs: 50 })
  // The default limits: 1 MiB JSON, 20 MiB uploads.
  server = await listen(createSessionApp(host, { auth: { secret } }).fetch)
  token = await mintToken(secret, 'ana')
  const res = await fetch(`${server.url}/sessions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: '{"profile":"appendix"}',
  })
  id = ((await res.json()) as { id: string }).id
})
afterAll(async () => {
  await host.stop()
  await server.close()
})

const auth = () => ({ authorization: `Bearer ${token}` })

function expectTooLarge(answer: Awaited<ReturnType<typeof streamRequest>>, limit: number) {
  expect(answer.error).toBeUndefined() // answered, not reset
  expect(answer.status).toBe(413)
  const body = JSON.parse(answer.text) as { error: { code: string; message: string } }
  expect(body.error.code).toBe('too-large')
  expect(body.error.message).toContain(String(limit))
}

describe('limits at the door (Node, @hono/node-server)', () => {
  for (const contentLength of [true, false]) {
    const how = contentLength ? 'with Content-Length' : 'chunked, no Content-Length'
    it(`a 64 MiB POST /messages, ${how}: 413 naming the 1 MiB limit, nothing queued`, async () => {
      const answer = await streamRequest(
        `${server.url}/sessions/${id}/messages`,
        'POST',
        { ...auth(), 'content-type': 'application/json' },
        64 * MiB,
        { contentLength, prefix: '{"text":"' },
      )
      expectTooLarge(answer, MiB)
      expect(await host.messages(id)).toEqual([])
    }, 60_000)

    it(`a 21 MiB PUT …/file and a 21 MiB multipart upload, ${how}: 413 naming the 20 MiB limit, nothing written`, async () => {
      const put = await streamRequest(
        `${server.url}/sessions/${id}/file?path=/context/big.bin`,
        'PUT',
        { ...auth(), 'content-type': 'application/octet-stream' },
        21 * MiB,
        { contentLength },
      )
      expectTooLarge(put, 20 * MiB)
      const boundary = 'b0undary'
      const multipart = await streamRequest(
        `${server.url}/sessions/${id}/files`,
        'POST',
        { ...auth(), 'content-type': `multipart/form-data; boundary=${boundary}` },
        21 * MiB,
        {
          contentLength,
          prefix: `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.md"\r\n\r\n`,
        },
      )
      expectTooLarge(multipart, 20 * MiB)
      expect(await (await host.workspace(id)).glob('/context/**')).toEqual([])
    }, 60_000)
  }

  it('four 100 MiB JSON bodies at once: each 413, and the process RSS does not grow by hundreds of MB', async () => {
    const before = process.memoryUsage.rss()
    let peak = before
    const probe = setInterval(() => (peak = Math.max(peak, process.memoryUsage.rss())), 20)
    const answers = await Promise.all(
      [true, false, true, false].map(contentLength =>
        streamRequest(`${server.url}/sessions`, 'POST', { ...auth(), 'content-type': 'application/json' }, 100 * MiB, {
          contentLength,
          prefix: '{"profile":"',
        }),
      ),
    )
    clearInterval(probe)
    for (const a of answers) expectTooLarge(a, MiB)
    const grownMb = (peak - before) / MiB
    console.log(
      `RSS before ${(before / MiB).toFixed(0)} MB, peak ${(peak / MiB).toFixed(0)} MB (+${grownMb.toFixed(0)} MB) over four 100 MiB bodies`,
    )
    expect(grownMb).toBeLessThan(150)
  }, 120_000)

  it("a body within its limit still reaches the route (a 900 KiB message is the schema's 400, not a 413)", async () => {
    const res = await fetch(`${server.url}/sessions/${id}/messages`, {
      method: 'POST',
      headers: { ...auth(), 'content-type': 'application/json' },
      body: JSON.stringify({ text: 'x'.repeat(900 * 1024) }),
    })
    expect(res.status).toBe(400)
    expect(((await res.json()) as any).error.code).toBe('invalid')
    const ok = await fetch(`${server.url}/sessions/${id}/file?path=/work/ok.bin`, {
      method: 'PUT',
      headers: auth(),
      body: new Uint8Array(5 * MiB),
    })
    expect(ok.status).toBe(201)
  })

  it('multipart names are judged on their raw bytes: a backslash, an absolute path or .. is 400 and nothing is stored', async () => {
    for (const name of REFUSED_PART_NAMES) {
      const { body, contentType } = multipartWith(name, '{}')
      const res = await fetch(`${server.url}/sessions/${id}/files`, {
        method: 'POST',
        headers: { ...auth(), 'content-type': contentType },
        body,
      })
      expect([name, res.status]).toEqual([name, 400])
      expect(((await res.json()) as any).error.code).toBe('invalid')
    }
    const { body, contentType } = multipartWith('notes/a b.md', 'fine')
    const ok = await fetch(`${server.url}/sessions/${id}/files`, {
      method: 'POST',
      headers: { ...auth(), 'content-type': contentType },
      body,
    })
    expect(await ok.json()).toEqual({ paths: ['/context/notes/a b.md'] })
    const files = (await (await host.workspace(id)).glob('/**')).filter(p => p.endsWith('.json') || p.endsWith('.md'))
    expect(files.filter(p => !p.startsWith('/state/'))).toEqual(['/context/notes/a b.md'])
  })
})
