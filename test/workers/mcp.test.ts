import { createRunJs, memoryStore, openVfs } from '../../src/index.js'
import { createWorkspaceTools } from '../../src/agent/index.js'
import { connectMcpTools, runJsTools, serveStatelessMcp, workspaceMcpServer } from '../../src/mcp/index.js'
import { workerdEngine } from '../../src/runtimes/workerd/index.js'
import { expect, it } from 'vitest'

// MCP in and out inside workerd, with no network: the client's fetch is the server's handler, so
// the SDK's Client, its streamable-HTTP client transport, the low-level Server and its web-standard
// server transport all run in the Workers runtime (no ajv code generation, no Node built-ins).
it('an agent-side MCP client calls a workspace MCP server, directly and from run_js, in workerd', async () => {
  const other = await openVfs({ store: memoryStore(), namespace: 'mcp', scope: 'other' })
  await other.writeFile('/notes.md', 'hello from workerd')
  const served = (input: string | URL, init?: RequestInit) =>
    serveStatelessMcp(new Request(input, init), () => workspaceMcpServer({ tools: createWorkspaceTools({ vfs: other }), vfs: other }))
  const mcp = await connectMcpTools({
    servers: [{ name: 'other', url: 'http://mcp.invalid/mcp', allow: ['read_file', 'write_file'] }],
    fetch: served as typeof fetch,
  })
  try {
    expect(Object.keys(mcp.tools).sort()).toEqual(['mcp_other_read_file', 'mcp_other_write_file'])
    expect(await mcp.tools.mcp_other_read_file.execute({ path: '/notes.md' })).toContain('hello from workerd')
    await expect(mcp.tools.mcp_other_read_file.execute({ path: '/../etc/passwd' })).rejects.toMatchObject({ code: 'failed' })

    const mine = await openVfs({ store: memoryStore(), namespace: 'mcp', scope: 'mine' })
    const runJs = createRunJs({ vfs: mine, engine: workerdEngine(), typescript: false, tools: runJsTools(mcp.tools) })
    const r = await runJs.run("return await external_mcp_other_write_file({ path: '/from-js.md', content: 'written in workerd' })")
    expect(r).toMatchObject({ success: true })
    expect(await other.readFile('/from-js.md', 'utf8')).toBe('written in workerd')
  } finally {
    await mcp.close()
  }
})
