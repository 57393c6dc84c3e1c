import { serve, type ServerType } from '@hono/node-server'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { scriptAppendixProfile } from '../../fixtures/script-appendix/profile.js'
import { createRunJs, memoryStore, type VfsStore } from '../../src/index.js'
import { mountSessionMcp } from '../../src/mcp/index.js'
import { createSessionApp, createSessionHost, mintToken, type SessionHost } from '../../src/session/index.js'
import { mcpClient, sessionMcpSuite, textOf } from '../mcp/session-mcp-suite.js'
import { liveMcpSuite } from '../mcp/live-mcp-suite.js'

const secret = 'test-secret-test-secret-test-secret-mcp0'

/** A session host with its MCP endpoint on loopback, on `port` (0: the kernel's pick). */
async function startHost(store: VfsStore, port = 0): Promise<{ host: SessionHost; url: string; stop(): Promise<void> }> {
  const host = createSessionHost({ store, agents: { appendix: scriptAppendixProfile() }, pollMs: 50 })
  const app = createSessionApp(host, { auth: { secret }, maxJsonBytes: 64 * 1024 })
  mountSessionMcp(app, host, { runJs: view => createRunJs({ vfs: view }), allowedOrigins: ['https://allowed.example'] })
  const server: ServerType = await new Promise(resolve => {
    const s = serve({ fetch: app.fetch, hostname: '127.0.0.1', port }, () => resolve(s))
  })
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  return {
    host,
    url,
    stop: async () => {
      await host.stop()
      // A restart: the process goes away with its connections (a client finds them closed).
      await new Promise<void>(r => {
        server.close(() => r())
        ;(server as unknown as { closeAllConnections(): void }).closeAllConnections()
      })
    },
  }
}

/** A new session of ana's, and her token. */
async function anaSession(): Promise<{ id: string; token: string }> {
  const token = await mintToken(secret, 'ana')
  const created = await fetch(`${running.url}/sessions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ profile: 'appendix' }),
  })
  return { id: ((await created.json()) as { id: string }).id, token }
}

const store = memoryStore()
let running: Awaited<ReturnType<typeof startHost>>
beforeAll(async () => {
  running = await startHost(store)
})
afterAll(() => running.stop())

describe('MCP out on the Node host', () => {
  sessionMcpSuite({
    url: () => running.url,
    token: owner => mintToken(secret, owner),
    runJs: true,
    allowedOrigin: 'https://allowed.example',
  })
  liveMcpSuite({ url: () => running.url, token: owner => mintToken(secret, owner), runJs: true, allowedOrigin: 'https://allowed.example' })

  it('bounds the body at the door like every JSON route (413)', async () => {
    const { id, token } = await anaSession()
    const client = await mcpClient(running.url, id, token)
    await expect(
      client.callTool({ name: 'write_file', arguments: { path: '/work/big.txt', content: 'x'.repeat(100_000) } }),
    ).rejects.toThrow(/413|too-large|limited/)
    await client.close()
  })

  it('a client keeps working across a restart of the host (nothing of an MCP session lives in the host)', async () => {
    const { id, token } = await anaSession()
    const client = await mcpClient(running.url, id, token)
    await client.callTool({ name: 'write_file', arguments: { path: '/work/before.md', content: 'before the restart' } })
    const port = Number(new URL(running.url).port)
    await running.stop()
    running = await startHost(store, port)
    // A real restart takes a moment: by then the client's pool has seen its old connections close.
    await new Promise(r => setTimeout(r, 200))
    // The same client, its transport never told: the next call reaches the new host.
    expect(textOf(await client.callTool({ name: 'read_file', arguments: { path: '/work/before.md' } })).text).toContain(
      'before the restart',
    )
    await client.callTool({ name: 'write_file', arguments: { path: '/work/after.md', content: 'after' } })
    expect((await client.listResources()).resources.map(r => r.uri)).toEqual(
      expect.arrayContaining(['vfs:///work/before.md', 'vfs:///work/after.md']),
    )
    await client.close()
  })
})
