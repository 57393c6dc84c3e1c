import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { expect, it } from 'vitest'
import { serveProcess } from '../shared/serve-process.js'

const initialize = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'origin-test', version: '1' } },
})

// The MCP origin setting of `npm run serve` (AGENT_VFS_MCP_ORIGINS, or --mcp-origins): the listed
// browser origins pass, any other Origin is 403, a request without one passes; a malformed entry
// stops the server at start with the fix.
it('npm run serve: AGENT_VFS_MCP_ORIGINS allows the listed browser origins on /sessions/{id}/mcp, and a malformed one is refused at start', async () => {
  const data = mkdtempSync(join(tmpdir(), 'agent-vfs-serve-mcp-'))
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PORT: '0',
    AGENT_VFS_DATA: data,
    AGENT_VFS_MCP_ORIGINS: 'https://app.example.com, http://localhost:6274',
  }
  delete env.DATABASE_URL
  delete env.AGENT_VFS_JWT_SECRET
  const bad = serveProcess(env, ['--mcp-origins', 'app.example.com/path'])
  // A server that ignores the setting starts instead: stop waiting for an exit once it is up.
  const started = bad.ready.then(async (up): Promise<number | null | string> => (up ? 'started' : bad.exited))
  const badExit = await Promise.race([bad.exited, started])
  bad.proc.kill('SIGKILL')
  expect(badExit).toBe(2)
  expect(bad.log()).toMatch(/--mcp-origins \/ AGENT_VFS_MCP_ORIGINS: an allowed MCP origin is scheme:\/\/host\[:port\]/)
  expect(bad.log()).not.toMatch(/\n\s+at /)

  const server = serveProcess(env)
  try {
    const { url, token } = (await server.ready)!
    const created = await fetch(`${url}/sessions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ profile: 'appendix' }),
    })
    const { id } = (await created.json()) as { id: string }
    const post = (origin?: string) =>
      fetch(`${url}/sessions/${id}/mcp`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${token}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          ...(origin ? { origin } : {}),
        },
        body: initialize,
      })
    expect((await post()).status).toBe(200)
    expect((await post('https://app.example.com')).status).toBe(200)
    expect((await post('http://localhost:6274')).status).toBe(200)
    const evil = await post('http://evil.example')
    expect(evil.status).toBe(403)
    expect(((await evil.json()) as { error: { code: string } }).error.code).toBe('forbidden-origin')
    expect((await post(url)).status).toBe(403)
  } finally {
    server.proc.kill('SIGTERM')
    await server.exited
    rmSync(data, { recursive: true, force: true })
  }
}, 180_000)
