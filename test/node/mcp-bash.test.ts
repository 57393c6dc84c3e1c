import { serve, type ServerType } from '@hono/node-server'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { scriptAppendixProfile } from '../../fixtures/script-appendix/profile.js'
import { createBash } from '../../src/bash/index.js'
import { memoryStore } from '../../src/index.js'
import { mountSessionMcp } from '../../src/mcp/index.js'
import { createSessionApp, createSessionHost, mintToken, type SessionHost } from '../../src/session/index.js'
import { mcpClient, textOf } from '../mcp/session-mcp-suite.js'

// The bash tool of a session's MCP server (agent-vfs/bash over the session's workspace, as the
// agent's own tools are scoped), on the Node host, through the SDK's own client.
const secret = 'test-secret-test-secret-test-secret-mcpb'
const MAX_BYTES = 32 * 1024

async function startHost(bash: boolean): Promise<{ host: SessionHost; url: string; server: ServerType }> {
  const host = createSessionHost({ store: memoryStore(), agents: { appendix: scriptAppendixProfile() }, quota: { maxBytes: MAX_BYTES } })
  const app = createSessionApp(host, { auth: { secret } })
  mountSessionMcp(
    app,
    host,
    bash ? { bash: view => createBash({ vfs: view, limits: { timeoutMs: 1500, maxOutputBytes: 64 * 1024 } }) } : {},
  )
  const server: ServerType = await new Promise(resolve => {
    const s = serve({ fetch: app.fetch, hostname: '127.0.0.1', port: 0 }, () => resolve(s))
  })
  return { host, server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` }
}

let withBash: Awaited<ReturnType<typeof startHost>>
let without: Awaited<ReturnType<typeof startHost>>
beforeAll(async () => {
  ;[withBash, without] = await Promise.all([startHost(true), startHost(false)])
})
afterAll(async () => {
  for (const h of [withBash, without]) {
    await h.host.stop()
    // Live clients' GET streams hold connections open: end them with the server.
    await new Promise<void>(r => {
      h.server.close(() => r())
      ;(h.server as unknown as { closeAllConnections(): void }).closeAllConnections()
    })
  }
})

async function session(url: string, owner = 'ana') {
  const token = await mintToken(secret, owner)
  const res = await fetch(`${url}/sessions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ profile: 'appendix' }),
  })
  const id = ((await res.json()) as { id: string }).id
  return { id, client: await mcpClient(url, id, token) }
}

const bash = async (client: Awaited<ReturnType<typeof session>>['client'], script: string) =>
  textOf(await client.callTool({ name: 'bash', arguments: { script } }))

describe('bash over MCP', () => {
  it('is absent when the host gives no bash', async () => {
    const { client } = await session(without.url)
    expect((await client.listTools()).tools.map(t => t.name)).not.toContain('bash')
    await client.close()
  })

  it('runs a command line over the session workspace: one commit, tagged bash over MCP, seen by the HTTP API', async () => {
    const { id, client } = await session(withBash.url)
    expect((await client.listTools()).tools.map(t => t.name)).toContain('bash')
    const before = (await withBash.host.changes.history(id)).length
    const r = await bash(
      client,
      'mkdir -p /work/out && printf "a\\nb\\n" > /work/out/x.txt && cp /work/out/x.txt /outputs/y.txt && wc -l < /work/out/x.txt',
    )
    expect(r.isError).toBe(false)
    expect(r.text).toContain('"stdout":"2\\n"')
    const history = await withBash.host.changes.history(id)
    const bashCommits = history.slice(before).filter(e => e.changes.some(c => c.path === '/work/out/x.txt' || c.path === '/outputs/y.txt'))
    expect(bashCommits).toHaveLength(1)
    expect(bashCommits[0].changes.filter(c => c.kind === 'file').map(c => c.actor)).toEqual([
      { kind: 'mcp', tool: 'bash' },
      { kind: 'mcp', tool: 'bash' },
    ])
    const events = await withBash.host.events(id)
    expect(events).toContainEqual(expect.objectContaining({ type: 'files-changed', by: { kind: 'mcp', tool: 'bash' } }))
    const file = await fetch(`${withBash.url}/sessions/${id}/file?path=/outputs/y.txt`, {
      headers: { authorization: `Bearer ${await mintToken(secret, 'ana')}` },
    })
    expect(await file.text()).toBe('a\nb\n')
    await client.close()
  })

  it('hostile: a while-true loop ends at the bound, and nothing it wrote lands', async () => {
    const { id, client } = await session(withBash.url)
    const r = await bash(client, 'echo start > /work/loop.txt; while true; do :; done')
    expect(r.isError).toBe(true)
    expect(await (await withBash.host.workspace(id)).exists('/work/loop.txt')).toBe(false)
    await client.close()
  })

  it('hostile: output is bounded', async () => {
    const { client } = await session(withBash.url)
    const r = await bash(client, 'for i in $(seq 1 5000); do echo 0123456789012345678901234567890123456789; done')
    expect(r.isError).toBe(true)
    expect(r.text.length).toBeLessThan(16 * 1024)
    await client.close()
  })

  it('hostile: /context stays read-only, and ".." does not escape', async () => {
    const { id, client } = await session(withBash.url)
    const ws = await withBash.host.workspace(id)
    const before = await ws.glob('/**')
    for (const script of ['echo x > /context/evil.md', 'mkdir /context/d', 'echo x > /work/../context/e.md', 'echo x > /state/plan.json']) {
      const r = await bash(client, script)
      expect({ script, isError: r.isError }).toEqual({ script, isError: true })
    }
    await ws.refresh()
    expect((await ws.glob('/**')).filter(p => !p.startsWith('/state/.bash'))).toEqual(before.filter(p => !p.startsWith('/state/.bash')))
    await client.close()
  })

  it("hostile: the owner's byte quota holds; another owner's session is 404", async () => {
    const { id, client } = await session(withBash.url)
    // 48,894 bytes: under the output bound (64 KiB, which counts redirections too), over the 32 KiB quota.
    const r = await bash(client, 'seq 1 10000 > /work/big.txt')
    expect(r.text).toMatch(/nothing was written/)
    expect(r.isError).toBe(true)
    expect(await (await withBash.host.workspace(id)).exists('/work/big.txt')).toBe(false)
    const res = await fetch(`${withBash.url}/sessions/${id}/mcp`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${await mintToken(secret, 'bob')}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'bash', arguments: { script: 'echo x > /work/x' } },
      }),
    })
    expect(res.status).toBe(404)
    await client.close()
  })
})
