import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import { expect, it } from 'vitest'

/** A session host behind HTTP, as the suite needs it (the Node host on loopback, the Worker under wrangler dev). */
export interface McpTarget {
  url(): string
  token(owner: string): Promise<string>
  /** Whether run_js is served. */
  runJs: boolean
  /** A browser origin the host was configured to allow (`allowedOrigins` / AGENT_VFS_MCP_ORIGINS). */
  allowedOrigin: string
}

/** An MCP client of the SDK on a session's endpoint, with the owner's bearer token. */
export async function mcpClient(base: string, sessionId: string, token: string | undefined): Promise<Client> {
  const client = new Client({ name: 'agent-vfs-test', version: '1' })
  const transport = new StreamableHTTPClientTransport(new URL(`${base}/sessions/${sessionId}/mcp`), {
    requestInit: { headers: token === undefined ? {} : { authorization: `Bearer ${token}` } },
  })
  await client.connect(transport)
  return client
}

/** The text of a tool result (and whether it is an error). */
export function textOf(result: unknown): { text: string; isError: boolean } {
  const r = result as CallToolResult
  const text = r.content.map(c => (c.type === 'text' ? c.text : '')).join('')
  return { text, isError: r.isError === true }
}

/**
 * What every host's `/sessions/{id}/mcp` must do: the workspace tools and files over the SDK's own
 * client, auth and ownership like every route, the session's path policy, and a stateless endpoint
 * a client reconnects to freely.
 */
export function sessionMcpSuite(target: McpTarget): void {
  const api = async (method: string, path: string, owner: string, body?: BodyInit, type = 'application/json') => {
    const res = await fetch(target.url() + path, {
      method,
      headers: { authorization: `Bearer ${await target.token(owner)}`, ...(body !== undefined ? { 'content-type': type } : {}) },
      ...(body !== undefined ? { body } : {}),
    })
    return res
  }
  const newSession = async (owner = 'ana') => {
    const res = await api('POST', '/sessions', owner, JSON.stringify({ profile: 'appendix', title: 'mcp' }))
    expect(res.status).toBe(201)
    return ((await res.json()) as { id: string }).id
  }
  const connect = async (id: string, owner = 'ana') => mcpClient(target.url(), id, await target.token(owner))

  it('sends text results as plain text, not as JSON of the text (what Claude Code, Cursor and the Inspector show)', async () => {
    const id = await newSession()
    const client = await connect(id)
    await client.callTool({ name: 'write_file', arguments: { path: '/work/q.md', content: 'one "quoted"\n\ttabbed\n' } })
    const read = (await client.callTool({ name: 'read_file', arguments: { path: '/work/q.md' } })) as CallToolResult
    expect(read.isError).toBeFalsy()
    expect(read.content).toHaveLength(1)
    const text = (read.content[0] as { text: string }).text
    expect(text).toMatch(/^\/work\/q\.md: lines 1-2 of 2\n/)
    expect(text).toContain('one "quoted"')
    expect(text).toContain('\t\ttabbed')
    expect(text).not.toContain('\\n')
    expect(read.structuredContent).toBeUndefined()
    await client.close()
  })

  it('refuses a browser page of a foreign origin (DNS rebinding) with a 403 JSON error; no Origin (a desktop client) and an allowed one pass', async () => {
    const id = await newSession()
    const initialize = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'origin-test', version: '1' } },
    })
    const post = async (origin?: string) =>
      fetch(`${target.url()}/sessions/${id}/mcp`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${await target.token('ana')}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          ...(origin !== undefined ? { origin } : {}),
        },
        body: initialize,
      })
    const allowedHost = new URL(target.allowedOrigin).host
    for (const origin of ['http://evil.example', 'null', `http://${allowedHost}`, `${target.allowedOrigin}.evil.example`, target.url()]) {
      const res = await post(origin)
      expect({ origin, status: res.status }).toEqual({ origin, status: 403 })
      const body = (await res.json()) as { error: { code: string; message: string } }
      expect(body.error.code).toBe('forbidden-origin')
      expect(body.error.message).toMatch(/AGENT_VFS_MCP_ORIGINS|allowedOrigins/)
    }
    expect((await post()).status).toBe(200)
    expect((await post(target.allowedOrigin)).status).toBe(200)
  })

  it('lists the workspace tools; a file written over MCP is the file the HTTP API serves, and the other way round', async () => {
    const id = await newSession()
    const client = await connect(id)
    const names = (await client.listTools()).tools.map(t => t.name)
    expect(names).toEqual(expect.arrayContaining(['ls', 'read_file', 'write_file', 'edit_file', 'glob', 'grep']))
    expect(names.includes('run_js')).toBe(target.runJs)
    expect(names).not.toContain('ask_user')

    const wrote = textOf(await client.callTool({ name: 'write_file', arguments: { path: '/work/notes.md', content: 'one\ntwo\n' } }))
    expect(wrote).toEqual({ text: expect.stringContaining('Created /work/notes.md'), isError: false })
    const served = await api('GET', `/sessions/${id}/file?path=/work/notes.md`, 'ana')
    expect(await served.text()).toBe('one\ntwo\n')

    expect((await api('PUT', `/sessions/${id}/file?path=/context/brief.md`, 'ana', 'the brief', 'application/octet-stream')).status).toBe(
      201,
    )
    expect(textOf(await client.callTool({ name: 'read_file', arguments: { path: '/context/brief.md' } })).text).toContain('the brief')
    const grep = textOf(await client.callTool({ name: 'grep', arguments: { pattern: 'two' } }))
    expect(grep.text).toContain('/work/notes.md')
    await client.close()
  })

  it('edit_file works across requests once the file was read (the read ledger outlives a stateless request)', async () => {
    const id = await newSession()
    const client = await connect(id)
    await client.callTool({ name: 'write_file', arguments: { path: '/work/a.txt', content: 'alpha beta' } })
    const edited = textOf(
      await client.callTool({ name: 'edit_file', arguments: { path: '/work/a.txt', old_string: 'beta', new_string: 'gamma' } }),
    )
    expect(edited.isError).toBe(false)
    expect(await (await api('GET', `/sessions/${id}/file?path=/work/a.txt`, 'ana')).text()).toBe('alpha gamma')
    await client.close()
  })

  it('serves the files as resources: listed, read as text or base64', async () => {
    const id = await newSession()
    expect(
      (await api('PUT', `/sessions/${id}/file?path=/work/bin.dat`, 'ana', new Uint8Array([0, 1, 2, 255]), 'application/octet-stream'))
        .status,
    ).toBe(201)
    expect((await api('PUT', `/sessions/${id}/file?path=/work/sp%20ace.md`, 'ana', 'hello', 'application/octet-stream')).status).toBe(201)
    const client = await connect(id)
    const { resources } = await client.listResources()
    const uris = resources.map(r => r.uri)
    expect(uris).toEqual(expect.arrayContaining(['vfs:///work/bin.dat', 'vfs:///work/sp%20ace.md']))
    const text = await client.readResource({ uri: 'vfs:///work/sp%20ace.md' })
    expect(text.contents[0]).toMatchObject({ text: 'hello' })
    const bin = await client.readResource({ uri: 'vfs:///work/bin.dat' })
    expect(bin.contents[0]).toMatchObject({ blob: btoa(String.fromCharCode(0, 1, 2, 255)) })
    await client.close()
  })

  it("refuses without a valid token (401, with the WWW-Authenticate a client expects) and hides another owner's session (404)", async () => {
    const id = await newSession('ana')
    const noToken = await fetch(`${target.url()}/sessions/${id}/mcp`, {
      method: 'POST',
      body: '{}',
      headers: { 'content-type': 'application/json' },
    })
    expect(noToken.status).toBe(401)
    // RFC 6750 / the MCP authorization spec: a bearer challenge, and no OAuth metadata to chase (there is no authorization server).
    expect(noToken.headers.get('www-authenticate')).toMatch(/^Bearer realm="agent-vfs"/)
    expect(noToken.headers.get('www-authenticate')).not.toMatch(/resource_metadata/)
    const badToken = await fetch(`${target.url()}/sessions/${id}/mcp`, {
      method: 'POST',
      body: '{}',
      headers: { 'content-type': 'application/json', authorization: 'Bearer a.b.c' },
    })
    expect(badToken.status).toBe(401)
    expect(badToken.headers.get('www-authenticate')).toMatch(/^Bearer realm="agent-vfs", error="invalid_token"/)
    await expect(mcpClient(target.url(), id, undefined)).rejects.toThrow(/401|unauthorized|token/i)
    await expect(mcpClient(target.url(), id, 'a.b.c')).rejects.toThrow(/401|invalid/i)
    await expect(connect(id, 'bob')).rejects.toThrow(/404|not found|no session/i)
    const missing = await api('POST', `/sessions/s${'0'.repeat(32)}/mcp`, 'ana', '{}')
    expect(missing.status).toBe(404)
  })

  it('keeps to the session\'s path policy: no "..", no backslashes, nothing outside the roots, read-only roots stay so', async () => {
    const id = await newSession()
    const client = await connect(id)
    const write = async (path: string) => textOf(await client.callTool({ name: 'write_file', arguments: { path, content: 'x' } }))
    for (const path of [
      '/work/../state/plan.json',
      '/work/..\\..\\x',
      '..\\work\\x',
      '/etc/passwd',
      '/x',
      '/state/plan.json',
      '/context/x.md',
      '/skills/x.md',
      'work/\0x',
    ])
      expect({ path, ...(await write(path)) }).toMatchObject({ path, isError: true })
    const read = textOf(await client.callTool({ name: 'read_file', arguments: { path: '/work/../../etc/passwd' } }))
    expect(read.isError).toBe(true)
    for (const uri of [
      'vfs:///../etc/passwd',
      'vfs:///work/%2e%2e/%2e%2e/etc',
      'vfs:///work%5c..%5cx',
      'vfs:///etc/passwd',
      'file:///etc/passwd',
      'vfs://%zz',
    ])
      await expect(client.readResource({ uri }), uri).rejects.toThrow()
    // Nothing landed anywhere.
    const list = (await (await api('GET', `/sessions/${id}/files`, 'ana')).json()) as Array<{ path: string }>
    expect(list.map(f => f.path).filter(p => !p.startsWith('/state/'))).toEqual([])
    await client.close()
  })

  it('a closed session is read-only over MCP', async () => {
    const id = await newSession()
    expect((await api('PUT', `/sessions/${id}/file?path=/work/kept.md`, 'ana', 'kept', 'application/octet-stream')).status).toBe(201)
    expect((await api('POST', `/sessions/${id}/close`, 'ana')).status).toBe(200)
    const client = await connect(id)
    expect(textOf(await client.callTool({ name: 'read_file', arguments: { path: '/work/kept.md' } })).text).toContain('kept')
    expect(textOf(await client.callTool({ name: 'write_file', arguments: { path: '/work/new.md', content: 'no' } })).isError).toBe(true)
    await client.close()
  })

  it('a GET stream needs the Mcp-Session-Id of an initialize (400 without); a new client (a reconnect) finds what an earlier one wrote', async () => {
    const id = await newSession()
    const first = await connect(id)
    await first.callTool({ name: 'write_file', arguments: { path: '/outputs/r.md', content: 'result' } })
    await first.close()
    const get = await fetch(`${target.url()}/sessions/${id}/mcp`, {
      headers: { authorization: `Bearer ${await target.token('ana')}`, accept: 'text/event-stream' },
    })
    expect(get.status).toBe(400)
    const again = await connect(id)
    expect(textOf(await again.callTool({ name: 'read_file', arguments: { path: '/outputs/r.md' } })).text).toContain('result')
    await again.close()
  })

  if (target.runJs)
    it('run_js runs a program on the same workspace, /state read-only to it', async () => {
      const id = await newSession()
      const client = await connect(id)
      const ran = textOf(
        await client.callTool({
          name: 'run_js',
          arguments: { code: "await vfs.write('/work/js.txt', 'from js'); return await vfs.list('/work')" },
        }),
      )
      expect(ran.isError).toBe(false)
      expect(JSON.parse(ran.text)).toMatchObject({ success: true, result: expect.arrayContaining(['js.txt']) })
      // A structured result: the object as structuredContent, its JSON as the text rendering.
      const again = (await client.callTool({ name: 'run_js', arguments: { code: 'return 1 + 1' } })) as CallToolResult
      expect(again.structuredContent).toMatchObject({ success: true, result: 2 })
      expect(JSON.parse((again.content[0] as { text: string }).text)).toEqual(again.structuredContent)
      expect(await (await api('GET', `/sessions/${id}/file?path=/work/js.txt`, 'ana')).text()).toBe('from js')
      const state = textOf(await client.callTool({ name: 'run_js', arguments: { code: "await vfs.write('/state/x.json', '{}')" } }))
      expect(state.isError).toBe(true)
      await client.close()
    })
}
