import { env, exports } from 'cloudflare:workers'
import { beforeAll, describe, expect, it } from 'vitest'
import { d1Store, isVfsError } from '../../src/index.js'
import { token } from './edge-harness.js'

// Storage is per test file: this file undoes apply-migrations.ts, as a deploy that never ran
// `wrangler d1 migrations apply` would leave it. The /d1 routes use the migration, not autoMigrate.
const call = (method: string, path: string, init: RequestInit = {}) =>
  exports.default.fetch(new Request(`https://edge.test${path}`, { method, ...init }))

beforeAll(async () => {
  await env.DB.batch(
    ['vfs_chunks', 'vfs_entries', 'vfs_scopes', 'vfs_guard', 'sessions', 'session_quota_guard'].map(t =>
      env.DB.prepare(`DROP TABLE IF EXISTS ${t}`),
    ),
  )
})

describe('D1 without its migration', () => {
  it('d1Store({ autoMigrate: false }) fails every operation with ESTORE saying how to apply the schema', async () => {
    const store = d1Store(env.DB, { autoMigrate: false })
    const put = {
      op: 'put',
      path: '/a',
      kind: 'file',
      data: new Uint8Array([1]),
      mtime: 1,
      ctime: 1,
      expectedVersion: 0,
    } as const
    for (const attempt of [
      () => store.load('n', 's'),
      () => store.commit('n', 's', [put]),
      () => store.listScopes('n'),
      () => store.deleteScope('n', 's'),
    ]) {
      const error = await attempt().then(
        () => undefined,
        (e: unknown) => e,
      )
      expect(isVfsError(error, 'ESTORE'), String(error)).toBe(true)
      expect((error as Error).message).toMatch(/wrangler d1 migrations apply/)
      expect((error as Error).message).toMatch(/migrate\(\)/)
    }
  })

  it('the /d1 routes answer 503 with a JSON error that names the missing migration, not a bare 500', async () => {
    for (const [method, path, body] of [
      ['GET', '/d1/alice/list'],
      ['GET', '/d1/alice/file/a.md'],
      ['PUT', '/d1/alice/file/a.md', 'x'],
      ['DELETE', '/d1/alice/file/a.md'],
    ] as const) {
      const res = await call(method, path, body === undefined ? {} : { body })
      expect(res.status, `${method} ${path}`).toBe(503)
      const json = (await res.json()) as { error: { code: string; message: string } }
      expect(json.error.code).toBe('ESTORE')
      expect(json.error.message).toMatch(/wrangler d1 migrations apply/)
    }
  })

  it('the session routes answer a JSON error that names the migration of the session index', async () => {
    const auth = await token('ana')
    for (const [method, path, body] of [
      ['GET', '/sessions'],
      ['POST', '/sessions', JSON.stringify({ profile: 'appendix' })],
      ['GET', '/sessions/s0123456789abcdef0123456789abcdef'],
    ] as const) {
      const res = await call(method, path, {
        headers: { authorization: `Bearer ${auth}`, 'content-type': 'application/json' },
        ...(body ? { body } : {}),
      })
      const json = (await res.json()) as { error: { code: string; message: string } }
      expect([res.status, json.error.code], `${method} ${path}`).toEqual([500, 'ESTORE'])
      expect(json.error.message).toMatch(/wrangler d1 migrations apply/)
      // The migration ships in the package: the message says where it is in node_modules, not in this repository.
      expect(json.error.message).toMatch(/node_modules\/agent-vfs\/dist\/migrations/)
      expect(json.error.message).not.toMatch(/worker-edge/)
    }
  })

  it('the Durable Object routes do not need D1 and keep working', async () => {
    expect((await call('PUT', '/ws/alice/file/a.md', { body: 'x' })).status).toBe(200)
    expect(await (await call('GET', '/ws/alice/file/a.md')).text()).toBe('x')
  })

  it('autoMigrate (the default) still creates the tables on first use', async () => {
    const store = d1Store(env.DB)
    expect(await store.listScopes('n')).toEqual([])
    // Now that they exist, the routes work too.
    expect((await call('PUT', '/d1/alice/file/a.md', { body: 'y' })).status).toBe(200)
    expect(await (await call('GET', '/d1/alice/file/a.md')).text()).toBe('y')
  })
})
