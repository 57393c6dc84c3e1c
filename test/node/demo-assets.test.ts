import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startWorker, type WranglerDev } from '../wrangler-dev/harness.js'

// The Worker serves the built demo as static assets (wrangler.toml `[assets]`), under a real
// `wrangler dev`: a stand-in build (`--assets`, the routing of wrangler.toml unchanged) shows which
// paths reach the demo and which the Worker.

const INDEX = '<!doctype html><title>demo stand-in</title>'
// What a browser sends when it opens a URL. The demo's index.html answers navigations to paths it
// has no file for (client-side routes); an API URL opened in a tab must still reach the Worker.
const navigate = { 'sec-fetch-mode': 'navigate', 'sec-fetch-dest': 'document', accept: 'text/html' }

describe('wrangler dev serving the demo as assets', () => {
  let dev: WranglerDev
  let assets: string
  beforeAll(async () => {
    assets = mkdtempSync(join(tmpdir(), 'agent-vfs-demo-assets-'))
    mkdirSync(join(assets, 'assets'))
    writeFileSync(join(assets, 'index.html'), INDEX)
    writeFileSync(join(assets, 'assets', 'app.js'), 'console.log(1)')
    dev = await startWorker({ assets })
  }, 240_000)
  afterAll(async () => {
    await dev?.stop()
    rmSync(assets, { recursive: true, force: true })
  })

  it('serves the demo: its files, and its index.html for any other path (client-side routes)', async () => {
    for (const path of ['/', '/index.html', '/some/client/route']) {
      const res = await fetch(`${dev.url}${path}`, { headers: navigate })
      expect(res.status, path).toBe(200)
      expect(await res.text(), path).toBe(INDEX)
    }
    const js = await fetch(`${dev.url}/assets/app.js`)
    expect(js.headers.get('content-type')).toMatch(/javascript/)
    expect(await js.text()).toBe('console.log(1)')
  })

  it('sends the API paths to the Worker, never to the demo, even when a browser navigates to them', async () => {
    // Workspace routes, which the Worker answers today: a write, then the read of it.
    expect((await fetch(`${dev.url}/ws/alice/file/a.md`, { method: 'PUT', body: 'x' })).status).toBe(200)
    expect(await (await fetch(`${dev.url}/ws/alice/file/a.md`, { headers: navigate })).text()).toBe('x')
    expect((await fetch(`${dev.url}/d1/alice/file/b.md`, { method: 'PUT', body: 'y' })).status).toBe(200)
    expect(await (await fetch(`${dev.url}/d1/alice/file/b.md`, { headers: navigate })).text()).toBe('y')
    // The session API: the Worker answers (a token is needed), never the demo's page.
    for (const headers of [{}, navigate]) {
      for (const path of ['/sessions', '/sessions/s0123456789abcdef0123456789abcdef/stream']) {
        const res = await fetch(`${dev.url}${path}`, { headers })
        expect(res.status, path).toBe(401)
        expect((await res.json()).error.code, path).toBe('unauthorized')
      }
      // The Worker's session app has no OpenAPI document (yet); whatever it answers, not the demo's page.
      expect(await (await fetch(`${dev.url}/openapi.json`, { headers })).text()).not.toBe(INDEX)
      // A session created with a token is there to read.
      const auth = { authorization: `Bearer ${await dev.token()}`, 'content-type': 'application/json' }
      const created = await fetch(`${dev.url}/sessions`, {
        method: 'POST',
        headers: auth,
        body: JSON.stringify({ profile: 'appendix' }),
      })
      expect(created.status).toBe(201)
      const { id } = await created.json()
      expect(
        (await (await fetch(`${dev.url}/sessions/${id}`, { headers: { ...headers, authorization: auth.authorization } })).json()).id,
      ).toBe(id)
    }
  })
})
