import { PGlite } from '@electric-sql/pglite'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { postgresStore, type VfsStore } from '../../src/index.js'
import { createSessionApp, createSessionHost, mintToken, type SessionHost } from '../../src/session/index.js'
import { startFetchServers } from '../run-js/fetch-servers.js'
import { listen } from '../session/http-client.js'
import { fetchingProfile } from '../session/run-js-reach-profiles.js'

// A program's fetch of a host outside its allow-list, routed by the profile's policy to an approval:
// asked through the HTTP API of one host, answered through another on the same PGlite (a restart).
const secret = 'fetch-approval-secret-fetch-approval-0123'

let db: PGlite
let store: VfsStore
let servers: Awaited<ReturnType<typeof startFetchServers>>
let token: string

/** One host and its HTTP API on a loopback port. */
async function serveHost(namespace: string) {
  const host: SessionHost = createSessionHost({ store, namespace, pollMs: 20, agents: { fetches: fetchingProfile(servers.origins.echo) } })
  const server = await listen(createSessionApp(host, { auth: { secret } }).fetch)
  const call = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(server.url + path, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    })
    const text = await res.text()
    let json: unknown
    try {
      json = JSON.parse(text)
    } catch {
      json = undefined
    }
    return { status: res.status, text, json: json as never }
  }
  const waitStatus = async (id: string, statuses: string[]) => {
    for (let i = 0; ; i++) {
      const { status } = (await call('GET', `/sessions/${id}`)).json as { status: string }
      if (statuses.includes(status)) return status
      if (i > 600) throw new Error(`session ${id} stayed ${status}`)
      await new Promise(r => setTimeout(r, 50))
    }
  }
  const stop = async () => {
    await host.stop()
    await server.close()
  }
  return { call, waitStatus, stop }
}

const dataRequests = async () =>
  ((await (await fetch(`${servers.origins.echo}/__seen`)).json()) as Array<{ url: string }>).filter(s => s.url === '/data').length

beforeAll(async () => {
  db = await PGlite.create()
  const pg = postgresStore({ client: db })
  await pg.migrate()
  store = pg
  servers = await startFetchServers()
  token = await mintToken(secret, 'fetch-owner')
})
afterAll(async () => {
  await servers?.close()
  await db?.close()
})

describe('a program’s fetch of a new host, approved through the session API (Node, PGlite)', () => {
  for (const decision of ['approve', 'deny'] as const) {
    it(`parks on an approval; after a restart, ${decision === 'approve' ? 'an approval makes the fetch, once' : 'a denial makes the fetch throw in the program'}`, async () => {
      const namespace = `fetch-${decision}-${Math.random().toString(36).slice(2)}`
      const before = await dataRequests()
      const a = await serveHost(namespace)
      const { id } = (await a.call('POST', '/sessions', { profile: 'fetches' })).json as { id: string }
      expect((await a.call('POST', `/sessions/${id}/messages`, { text: 'fetch the data' })).status).toBe(202)
      expect(await a.waitStatus(id, ['waiting_approval', 'waiting_input', 'failed', 'idle'])).toBe('waiting_approval')
      const pending = (await a.call('GET', `/sessions/${id}/pending`)).json as Array<{ id: string }>
      expect(pending).toEqual([
        expect.objectContaining({
          kind: 'approval',
          toolName: 'run_js',
          reason: 'a person approves new hosts',
          fetch: { url: `${servers.origins.echo}/data`, origin: servers.origins.echo, method: 'GET' },
          program: { call: 'external_fetch' },
        }),
      ])
      expect(await dataRequests()).toBe(before) // asked before anything was sent
      const files = async (c: typeof a) =>
        c.call('GET', `/sessions/${id}/files`).then(r => r.json) as Promise<Array<{ path: string; version: number }>>
      const written = (await files(a)).find(f => f.path.endsWith('before.md'))!
      await a.stop()

      const b = await serveHost(namespace) // another host on the same store: the restart
      expect((await b.call('POST', `/sessions/${id}/pending/${pending[0].id}`, { decision })).status).toBe(202)
      expect(await b.waitStatus(id, ['idle', 'failed'])).toBe('idle')
      const after = await files(b)
      expect(after.find(f => f.path === written.path)?.version).toBe(written.version) // not written again
      const outcomePath = after.find(f => f.path.endsWith('outcome.md'))!.path
      const outcome = (await b.call('GET', `/sessions/${id}/file?path=${encodeURIComponent(outcomePath)}`)).text
      if (decision === 'approve') {
        expect(outcome).toBe('fetched 200 GET')
        expect(await dataRequests()).toBe(before + 1)
      } else {
        expect(outcome).toBe(`FetchRefused: the user denied GET ${servers.origins.echo}; do not retry it, continue another way`)
        expect(await dataRequests()).toBe(before)
      }
      const executions = (await b.call('GET', `/sessions/${id}/executions`)).json as Array<{ status: string }>
      expect(executions.map(e => e.status)).toEqual(['completed'])
      await b.stop()
    }, 180_000)
  }
})
