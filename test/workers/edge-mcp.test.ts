import { beforeAll, describe, expect, it } from 'vitest'
import { call, createSession, token } from './edge-harness.js'

// /sessions/{id}/mcp on the Worker (the repository's worker-edge, which mounts sessionMcp): the
// session's object refuses a browser page of a foreign origin (DNS rebinding), allows the origins of
// its AGENT_VFS_MCP_ORIGINS binding (test/workers/vitest.config.ts) and clients that send no Origin;
// a 401 carries the bearer challenge MCP clients read.
let ana: string
beforeAll(async () => {
  ana = await token('ana')
})

const initialize = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'edge-origin', version: '1' } },
}
const mcp = (id: string, auth: string | undefined, origin?: string) =>
  call('POST', `/sessions/${id}/mcp`, auth, initialize, {
    accept: 'application/json, text/event-stream',
    ...(origin !== undefined ? { origin } : {}),
  })

describe('MCP on the Worker: origins and the 401 challenge', () => {
  it('refuses foreign origins with a 403 JSON error; the configured origin and no Origin pass', async () => {
    const s = await createSession(ana)
    for (const origin of [
      'http://evil.example',
      'null',
      'https://edge.test',
      'http://allowed.example',
      'https://allowed.example.evil.net',
    ]) {
      const res = await mcp(s.id, ana, origin)
      expect({ origin, status: res.status }).toEqual({ origin, status: 403 })
      const body = (await res.json()) as { error: { code: string; message: string } }
      expect(body.error.code).toBe('forbidden-origin')
      expect(body.error.message).toContain('AGENT_VFS_MCP_ORIGINS')
    }
    expect((await mcp(s.id, ana)).status).toBe(200)
    expect((await mcp(s.id, ana, 'https://allowed.example')).status).toBe(200)
  })

  it('a 401 carries WWW-Authenticate: Bearer, with invalid_token for a refused token and no OAuth metadata', async () => {
    const s = await createSession(ana)
    const none = await mcp(s.id, undefined)
    expect(none.status).toBe(401)
    expect(none.headers.get('www-authenticate')).toBe('Bearer realm="agent-vfs"')
    const bad = await mcp(s.id, 'a.b.c')
    expect(bad.status).toBe(401)
    expect(bad.headers.get('www-authenticate')).toMatch(/^Bearer realm="agent-vfs", error="invalid_token"/)
  })
})
