import { serve, type ServerType } from '@hono/node-server'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { scriptAppendixProfile } from '../../fixtures/script-appendix/profile.js'
import { memoryStore, type VfsStore } from '../../src/index.js'
import { mountSessionMcp, type SessionMcpOptions } from '../../src/mcp/index.js'
import { createSessionApp, createSessionHost, mintToken, type SessionHost } from '../../src/session/index.js'
import { cuttableFetch, liveClient, until } from '../mcp/live-mcp-suite.js'

// Live MCP on the Node host, what needs a host of its own: the owner's stream quota, idle streams,
// forgotten clients, hostile Last-Event-IDs, and a resume across a restart of the host.
const secret = 'test-secret-test-secret-test-secret-live'
const token = (owner: string) => mintToken(secret, owner)

async function startHost(store: VfsStore, options: SessionMcpOptions = {}, port = 0, maxStreams = 3) {
  const host: SessionHost = createSessionHost({ store, agents: { appendix: scriptAppendixProfile() }, pollMs: 50, quota: { maxStreams } })
  const app = createSessionApp(host, { auth: { secret } })
  mountSessionMcp(app, host, options)
  const server: ServerType = await new Promise(resolve => {
    const s = serve({ fetch: app.fetch, hostname: '127.0.0.1', port }, () => resolve(s))
  })
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  const stop = async () => {
    await host.stop()
    await new Promise<void>(r => {
      server.close(() => r())
      ;(server as unknown as { closeAllConnections(): void }).closeAllConnections()
    })
  }
  return { host, url, stop }
}

async function newSession(url: string, owner = 'ana'): Promise<string> {
  const res = await fetch(`${url}/sessions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${await token(owner)}`, 'content-type': 'application/json' },
    body: JSON.stringify({ profile: 'appendix' }),
  })
  return ((await res.json()) as { id: string }).id
}

/** An `initialize` by hand: the client's Mcp-Session-Id. */
async function initialize(url: string, id: string, owner = 'ana'): Promise<string> {
  const res = await fetch(`${url}/sessions/${id}/mcp`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${await token(owner)}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    }),
  })
  expect(res.status).toBe(200)
  return res.headers.get('mcp-session-id')!
}

const getStream = async (url: string, id: string, mcpId: string, owner = 'ana', lastEventId?: string) =>
  fetch(`${url}/sessions/${id}/mcp`, {
    headers: {
      authorization: `Bearer ${await token(owner)}`,
      accept: 'text/event-stream',
      'mcp-session-id': mcpId,
      ...(lastEventId !== undefined ? { 'last-event-id': lastEventId } : {}),
    },
  })

/** Reads a stream until it ends (or `ms` pass): its text and whether it ended. */
async function readFor(res: Response, ms: number): Promise<{ text: string; ended: boolean }> {
  const reader = res.body!.getReader()
  const decoder = new TextDecoder()
  let text = ''
  const deadline = Date.now() + ms
  for (;;) {
    const left = deadline - Date.now()
    if (left <= 0) break
    const next = await Promise.race([reader.read(), new Promise<'time'>(r => setTimeout(() => r('time'), left))])
    if (next === 'time') break
    if (next.done) return { text, ended: true }
    text += decoder.decode(next.value)
  }
  await reader.cancel()
  return { text, ended: false }
}

const store = memoryStore()
let running: Awaited<ReturnType<typeof startHost>>
beforeAll(async () => {
  running = await startHost(store, { live: { maxClientsPerOwner: 4, idleMs: 60_000, heartbeatMs: 60_000 } })
})
afterAll(() => running.stop())

describe('live MCP on the Node host', () => {
  it("hostile: GET streams count against the owner's stream quota (429 past it), not against another owner's", async () => {
    const id = await newSession(running.url)
    const opened: Response[] = []
    for (let i = 0; i < 3; i++) {
      const res = await getStream(running.url, id, await initialize(running.url, id))
      expect(res.status).toBe(200)
      opened.push(res)
    }
    const over = await getStream(running.url, id, await initialize(running.url, id))
    expect(over.status).toBe(429)
    const bobs = await newSession(running.url, 'bob')
    const bob = await getStream(running.url, bobs, await initialize(running.url, bobs, 'bob'), 'bob')
    expect(bob.status).toBe(200)
    await bob.body!.cancel()
    // A stream that ends gives its place back.
    await opened.pop()!.body!.cancel()
    let again: Response | undefined
    // The server hears the cancel a moment later.
    for (let i = 0; i < 100 && again?.status !== 200; i++) {
      await again?.body?.cancel()
      again = await getStream(running.url, id, await initialize(running.url, id))
      if (again.status !== 200) await new Promise(r => setTimeout(r, 50))
    }
    expect(again!.status).toBe(200)
    for (const res of [...opened, again!]) await res.body!.cancel()
  })

  it('hostile: a second GET of one client replaces the first; a forgotten client (past maxClientsPerOwner) loses its stream', async () => {
    const id = await newSession(running.url)
    const first = await initialize(running.url, id)
    const a = await getStream(running.url, id, first)
    const b = await getStream(running.url, id, first)
    expect((await readFor(a, 5000)).ended).toBe(true)
    await b.body!.cancel()
    const c = await getStream(running.url, id, first)
    // Four more clients of ana's: the first, least recently seen, is forgotten and its stream ends.
    for (let i = 0; i < 4; i++) await initialize(running.url, id)
    expect((await readFor(c, 5000)).ended).toBe(true)
  })

  it('hostile: a Last-Event-ID that is not one of ours is 400; one past the end resumes from now', async () => {
    const id = await newSession(running.url)
    const mcpId = await initialize(running.url, id)
    for (const bad of ['abc', '1:2:3', '9'.repeat(40), '-1'])
      expect({ bad, status: (await getStream(running.url, id, mcpId, 'ana', bad)).status }).toEqual({ bad, status: 400 })
    const future = await getStream(running.url, id, mcpId, 'ana', '999999')
    expect(future.status).toBe(200)
    const put = fetch(`${running.url}/sessions/${id}/file?path=/work/f.md`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${await token('ana')}`, 'content-type': 'application/octet-stream' },
      body: 'x',
    })
    const [read] = await Promise.all([readFor(future, 3000), put])
    // This client subscribed to nothing: a new file is a change of the list.
    expect(read.text).toContain('notifications/resources/list_changed')
    expect(read.text).not.toContain('notifications/resources/updated')
  })

  it('hostile: a subscription URI is bounded (4,096 characters) and must name a workspace path', async () => {
    const id = await newSession(running.url)
    const live = await liveClient(running.url, id, await token('ana'))
    await expect(live.client.subscribeResource({ uri: 'vfs:///work/' + 'x'.repeat(5000) })).rejects.toThrow(/4096/)
    await expect(live.client.subscribeResource({ uri: 'https://example.com/a' })).rejects.toThrow(/vfs:\/\/\//)
    await live.close()
  })

  it('an idle stream ends; the SDK client reconnects by itself and resumes', async () => {
    const quick = await startHost(memoryStore(), { live: { idleMs: 200, heartbeatMs: 100 } })
    try {
      const id = await newSession(quick.url)
      const mcpId = await initialize(quick.url, id)
      const read = await readFor(await getStream(quick.url, id, mcpId), 5000)
      expect(read.ended).toBe(true)
      expect(read.text).toMatch(/^id: \d+\nretry: 1000\ndata: \n\n/)
      const wire = cuttableFetch()
      const live = await liveClient(quick.url, id, await token('ana'), wire.fetch)
      await live.client.subscribeResource({ uri: 'vfs:///work/i.md' })
      await until(() => wire.gets.length >= 3, 'two reconnects after idle ends')
      await fetch(`${quick.url}/sessions/${id}/file?path=/work/i.md`, {
        method: 'PUT',
        headers: { authorization: `Bearer ${await token('ana')}`, 'content-type': 'application/octet-stream' },
        body: 'x',
      })
      await until(() => live.count('vfs:///work/i.md') === 1, 'the notification on a reconnected stream')
      await live.close()
    } finally {
      await quick.stop()
    }
  })

  it('a stream resumes across a restart of the host: the restarted host hears every changed file for a client it does not know', async () => {
    const own = memoryStore()
    let host = await startHost(own)
    const port = Number(new URL(host.url).port)
    try {
      const id = await newSession(host.url)
      const wire = cuttableFetch()
      const live = await liveClient(host.url, id, await token('ana'), wire.fetch)
      await live.client.subscribeResource({ uri: 'vfs:///work/kept.md' })
      await until(() => wire.gets.some(g => g.status === 200), 'the GET stream')
      wire.cut()
      await host.stop()
      host = await startHost(own, {}, port)
      await fetch(`${host.url}/sessions/${id}/file?path=/work/kept.md`, {
        method: 'PUT',
        headers: { authorization: `Bearer ${await token('ana')}`, 'content-type': 'application/octet-stream' },
        body: 'written while the client was away, on the restarted host',
      })
      wire.release()
      await until(() => live.count('vfs:///work/kept.md') === 1, 'the missed notification from the restarted host')
      expect(wire.gets.at(-1)!.lastEventId).toMatch(/^\d+/)
      await live.close()
    } finally {
      await host.stop()
    }
  })
})
