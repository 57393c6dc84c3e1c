import { createRunJs, memoryStore, openVfs } from '../../src/index.js'
import { createWorkspaceTools } from '../../src/agent/index.js'
import { connectMcpTools, runJsTools, serveStatelessMcp, workspaceMcpServer } from '../../src/mcp/index.js'
import { workerdEngine } from '../../src/runtimes/workerd/index.js'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import { expect, it } from 'vitest'
import { expectRemoteArgumentsValidated } from '../mcp/remote-validation.js'

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

it("remote tool arguments are checked against the server's schema in workerd too (no ajv code generation)", async () => {
  await expectRemoteArgumentsValidated()
})

it("the SDK's own client reads a string result as plain text and an object as structuredContent, in workerd", async () => {
  const vfs = await openVfs({ store: memoryStore(), namespace: 'mcp', scope: 'plain' })
  await vfs.writeFile('/a.md', '# Notes\n\tindented "quoted"\n')
  const served = (input: string | URL, init?: RequestInit) =>
    serveStatelessMcp(new Request(input, init), () =>
      workspaceMcpServer({
        tools: createWorkspaceTools({ vfs, runJs: view => createRunJs({ vfs: view, engine: workerdEngine(), typescript: false }) }),
        vfs,
      }),
    )
  const client = new Client({ name: 'plain-text', version: '1' })
  await client.connect(new StreamableHTTPClientTransport(new URL('http://mcp.invalid/mcp'), { fetch: served as typeof fetch }))
  try {
    const read = (await client.callTool({ name: 'read_file', arguments: { path: '/a.md' } })) as CallToolResult
    expect(read.content).toEqual([{ type: 'text', text: expect.stringMatching(/^\/a\.md: lines 1-2 of 2\n/) }])
    expect((read.content[0] as { text: string }).text).toContain('\tindented "quoted"')
    expect(read.structuredContent).toBeUndefined()
    const ran = (await client.callTool({ name: 'run_js', arguments: { code: 'return 6 * 7' } })) as CallToolResult
    expect(ran.structuredContent).toMatchObject({ success: true, result: 42 })
    expect(JSON.parse((ran.content[0] as { text: string }).text)).toEqual(ran.structuredContent)
  } finally {
    await client.close()
  }
})
