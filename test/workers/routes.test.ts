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
      expect(((await (await call('GET', `${base}/list?recursive=1`)).json()) as { entries: string[] }).entries).toContain('bin/x.bin')

      const grep = (await (await call('GET', `${base}/grep?q=WORLD&ignoreCase=1&path=/notes`)).json()) as {
        matches: { path: string; line: number }[]
      }
      expect(grep.matches.map(m => [m.path, m.line])).toEqual([
        ['/notes/a.md', 2],
        ['/notes/b.txt', 1],
      ])

      expect((await call('DELETE', `${base}/file/notes/a.md`)).status).toBe(204)
      const gone = await call('GET', `${base}/file/notes/a.md`)
      expect(gone.status).toBe(404)
      expect(await gone.json()).toMatchObject({ error: { code: 'ENOENT', path: '/notes/a.md' } })
    })

    it('answers a stale conditional write with 412 and bad paths with 400', async () => {
      const put = await call('PUT', `${base}/file/cas.txt`, { body: 'v1' })
      const first = (await put.json()) as { version: number }
      expect(put.headers.get('etag')).toBe(`"${first.version}"`)
      expect((await call('PUT', `${base}/file/cas.txt`, { body: 'v2', headers: { 'if-match': `"${first.version}"` } })).status).toBe(200)
      const stale = await call('PUT', `${base}/file/cas.txt`, { body: 'v3', headers: { 'if-match': `"${first.version}"` } })
      expect(stale.status).toBe(412)
      expect(await stale.json()).toMatchObject({ error: { code: 'ECONFLICT', path: '/cas.txt' } })
      expect(await (await call('GET', `${base}/file/cas.txt`)).text()).toBe('v2')
      expect((await call('PUT', `${base}/file/a%5Cb`, { body: 'x' })).status).toBe(400)
    })

    it('ETags are quoted; If-Match takes what GET gave, lists and *; weak tags never match; malformed ones are 400', async () => {
      await call('PUT', `${base}/file/etag/doc.txt`, { body: 'one' })
      const get = await call('GET', `${base}/file/etag/doc.txt`)
      const etag = get.headers.get('etag')!
      expect(etag).toMatch(/^"\d+"$/)
      const ifMatch = (value: string, body = 'next') => call('PUT', `${base}/file/etag/doc.txt`, { body, headers: { 'if-match': value } })
      // The tag as GET sent it, inside a list, and * (any current file) all pass.
      const r1 = await ifMatch(etag)
      expect(r1.status).toBe(200)
      const tag2 = r1.headers.get('etag')!
      expect(tag2).not.toBe(etag)
      const r2 = await ifMatch(`"999999", ${tag2}`)
      expect(r2.status).toBe(200)
      expect((await ifMatch('*')).status).toBe(200)
      // A stale tag, a weak tag (If-Match compares strongly) and * on a missing file: 412, JSON.
      const current = (await call('GET', `${base}/file/etag/doc.txt`)).headers.get('etag')!
      for (const value of [etag, `W/${current}`, '"not-a-version"']) {
        const r = await ifMatch(value, 'lost')
        expect(r.status, value).toBe(412)
        expect(await r.json(), value).toMatchObject({ error: { code: 'ECONFLICT' } })
      }
      const missing = await call('PUT', `${base}/file/etag/none.txt`, { body: 'x', headers: { 'if-match': '*' } })
      expect(missing.status).toBe(412)
      expect((await call('GET', `${base}/file/etag/none.txt`)).status).toBe(404)
      // Not entity tags at all: 400 with a JSON error that says how to write one.
      for (const value of ['5', '"unterminated', 'W/5', '"1" "2"', '"1",,', ',']) {
        const r = await ifMatch(value, 'lost')
        expect(r.status, value).toBe(400)
        expect(await r.json(), value).toMatchObject({ error: { code: 'EINVAL', message: expect.stringMatching(/If-Match/) } })
      }
      expect(await (await call('GET', `${base}/file/etag/doc.txt`)).text()).toBe('next')
    })

    it('text types say charset=utf-8; binary types do not', async () => {
      await call('PUT', `${base}/file/types/a.txt`, { body: 'héllo' })
      await call('PUT', `${base}/file/types/b.md`, { body: '# hi' })
      await call('PUT', `${base}/file/types/c.png`, { body: Uint8Array.of(137, 80, 78, 71) })
      expect((await call('GET', `${base}/file/types/a.txt`)).headers.get('content-type')).toBe('text/plain; charset=utf-8')
      expect((await call('GET', `${base}/file/types/b.md`)).headers.get('content-type')).toBe('text/markdown; charset=utf-8')
      expect((await call('GET', `${base}/file/types/c.png`)).headers.get('content-type')).toBe('image/png')
    })
  })
}

it('keeps workspaces of different names apart', async () => {
  await call('PUT', '/ws/bob/file/only-bob.txt', { body: 'bob' })
  expect((await call('GET', '/ws/carol/file/only-bob.txt')).status).toBe(404)
  expect((await call('GET', '/ws/bob/file/only-bob.txt')).status).toBe(200)
})
