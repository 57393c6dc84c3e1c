import { exports } from 'cloudflare:workers'
import { describe, expect, it } from 'vitest'

const call = (method: string, path: string, init: RequestInit = {}) =>
  exports.default.fetch(new Request(`https://edge.test${path}`, { method, ...init }))

// The same routes, served by a Durable Object (/ws) and by the Worker over D1 (/d1).
for (const base of ['/ws/alice', '/d1/alice']) {
  describe(`HTTP routes ${base}`, () => {
    it('writes, reads, lists, greps and deletes files', async () => {
      const put = await call('PUT', `${base}/file/notes/a.md`, { body: 'hello\nworld\n' })
      expect(put.status).toBe(200)
      expect(await put.json()).toMatchObject({ path: '/notes/a.md', size: 12 })
      await call('PUT', `${base}/file/notes/b.txt`, { body: 'another world' })
      const bytes = Uint8Array.of(0, 255, 128, 10)
      expect((await call('PUT', `${base}/file/bin/x.bin`, { body: bytes })).status).toBe(200)

      const get = await call('GET', `${base}/file/notes/a.md`)
      expect(get.status).toBe(200)
      expect(get.headers.get('content-type')).toContain('markdown')
      expect(await get.text()).toBe('hello\nworld\n')
      expect(new Uint8Array(await (await call('GET', `${base}/file/bin/x.bin`)).arrayBuffer())).toEqual(bytes)

      expect(await (await call('GET', `${base}/list?path=/notes`)).json()).toEqual({ path: '/notes', entries: ['a.md', 'b.txt'] })
      expect((await (await call('GET', `${base}/list?recursive=1`)).json() as { entries: string[] }).entries).toContain('bin/x.bin')

      const grep = await (await call('GET', `${base}/grep?q=WORLD&ignoreCase=1&path=/notes`)).json() as { matches: { path: string; line: number }[] }
      expect(grep.matches.map((m) => [m.path, m.line])).toEqual([['/notes/a.md', 2], ['/notes/b.txt', 1]])

      expect((await call('DELETE', `${base}/file/notes/a.md`)).status).toBe(204)
      const gone = await call('GET', `${base}/file/notes/a.md`)
      expect(gone.status).toBe(404)
      expect(await gone.json()).toMatchObject({ error: { code: 'ENOENT', path: '/notes/a.md' } })
    })

    it('answers a stale conditional write with 409 ECONFLICT and bad paths with 400', async () => {
      const first = await (await call('PUT', `${base}/file/cas.txt`, { body: 'v1' })).json() as { version: number }
      expect((await call('PUT', `${base}/file/cas.txt`, { body: 'v2', headers: { 'if-match': String(first.version) } })).status).toBe(200)
      const stale = await call('PUT', `${base}/file/cas.txt`, { body: 'v3', headers: { 'if-match': String(first.version) } })
      expect(stale.status).toBe(409)
      expect(await stale.json()).toMatchObject({ error: { code: 'ECONFLICT' } })
      expect(await (await call('GET', `${base}/file/cas.txt`)).text()).toBe('v2')
      expect((await call('PUT', `${base}/file/a%5Cb`, { body: 'x' })).status).toBe(400)
    })
  })
}

it('keeps workspaces of different names apart', async () => {
  await call('PUT', '/ws/bob/file/only-bob.txt', { body: 'bob' })
  expect((await call('GET', '/ws/carol/file/only-bob.txt')).status).toBe(404)
  expect((await call('GET', '/ws/bob/file/only-bob.txt')).status).toBe(200)
})
