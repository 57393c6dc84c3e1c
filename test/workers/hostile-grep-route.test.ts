import { exports } from 'cloudflare:workers'
import { expect, it } from 'vitest'

const call = (method: string, path: string, init: RequestInit = {}) =>
  exports.default.fetch(new Request(`https://edge.test${path}`, { method, ...init }))

// A request's regex is hostile: the Worker's /grep runs it in linear time and refuses what RE2 cannot run.
for (const base of ['/ws/mallory', '/d1/mallory']) {
  it(`GET ${base}/grep runs catastrophic regexes in linear time and answers bad ones with 400`, async () => {
    await call('PUT', `${base}/file/a.txt`, { body: 'a'.repeat(20_000) + '!\n' })
    for (const q of ['(a+)+$', '(a+){9}$', '((a|a))*$', '\\w*\\w*\\w*\\w*\\w*!']) {
      const started = Date.now()
      const res = await call('GET', `${base}/grep?regex=1&q=${encodeURIComponent(q)}`)
      expect(res.status, q).toBe(200)
      expect(Date.now() - started, q).toBeLessThan(2_000)
    }
    const bad = await call('GET', `${base}/grep?regex=1&q=${encodeURIComponent('(a)\\1')}`)
    expect(bad.status).toBe(400)
    expect(await bad.json()).toMatchObject({ error: { code: 'EINVAL', message: expect.stringMatching(/RE2/) } })
    const many = await call('GET', `${base}/grep?q=a&${Array.from({ length: 1_001 }, () => 'path=/a.txt').join('&')}`)
    expect(many.status).toBe(400)
  })
}
