import { afterAll, beforeAll, describe } from 'vitest'
import { sessionMcpSuite } from '../mcp/session-mcp-suite.js'
import { liveMcpSuite } from '../mcp/live-mcp-suite.js'
import { startWorker, type WranglerDev } from '../wrangler-dev/harness.js'

// The edge Worker under a real `wrangler dev` on loopback: /sessions/{id}/mcp is served by the
// session's Durable Object, behind the Worker's JWT check and D1 ownership, with the SDK's client.
let dev: WranglerDev
beforeAll(async () => {
  dev = await startWorker({ vars: { AGENT_VFS_MCP_ORIGINS: 'https://allowed.example' } })
}, 240_000)
afterAll(() => dev?.stop())

describe('MCP out on the Worker (wrangler dev)', () => {
  sessionMcpSuite({ url: () => dev.url, token: owner => dev.token(owner), runJs: true, allowedOrigin: 'https://allowed.example' })
  liveMcpSuite({ url: () => dev.url, token: owner => dev.token(owner), runJs: true, allowedOrigin: 'https://allowed.example' })
})
