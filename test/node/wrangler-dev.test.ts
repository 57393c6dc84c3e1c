import { existsSync } from 'node:fs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { groupAlive } from '../../scripts/wrangler-local.js'
import { startWorker, type WranglerDev } from '../wrangler-dev/harness.js'

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
      const json = await res.json() as { error: { code: string; message: string } }
      expect(json.error.code).toBe('ESTORE')
      expect(json.error.message).toMatch(/wrangler d1 migrations apply <database>`, with --local under wrangler dev/)
    }
  })

  it('the Durable Object file routes work meanwhile', async () => {
    expect((await fetch(`${dev.url}/ws/alice/file/a.md`, { method: 'PUT', body: 'x' })).status).toBe(200)
    expect(await (await fetch(`${dev.url}/ws/alice/file/a.md`)).text()).toBe('x')
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
