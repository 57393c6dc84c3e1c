import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { ResourceListChangedNotificationSchema, ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js'
import { expect, it } from 'vitest'
import { generateEpisodes } from '../../fixtures/script-appendix/generator.js'
import type { McpTarget } from './session-mcp-suite.js'

/** Waits for `check` to hold, polling; a generous bound, so a busy machine does not fail it. */
export async function until(check: () => boolean, what: string, ms = 15_000): Promise<number> {
  const started = Date.now()
  while (!check()) {
    if (Date.now() - started > ms) throw new Error(`timed out after ${ms} ms waiting for ${what}`)
    await new Promise(r => setTimeout(r, 10))
  }
  return Date.now() - started
}

/**
 * A fetch for the SDK's transport whose GET streams a test can cut (as a dropped connection) and
 * whose reconnects it can hold back; it records the Last-Event-ID each GET sends.
 */
export function cuttableFetch() {
  const gets: { lastEventId: string | null; status?: number }[] = []
  let cut: (() => void) | undefined
  let gate: Promise<void> = Promise.resolve()
  let open = () => {}
  const fetchFn = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    if ((init?.method ?? 'GET') !== 'GET') return fetch(input, init)
    await gate
    const record: (typeof gets)[number] = { lastEventId: new Headers(init?.headers).get('last-event-id') }
    gets.push(record)
    const res = await fetch(input, init)
    record.status = res.status
    if (!res.body) return res
    const reader = res.body.getReader()
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        cut = () => {
          controller.error(new Error('connection cut by the test'))
          void reader.cancel().catch(() => undefined)
        }
      },
      async pull(controller) {
        try {
          const { done, value } = await reader.read()
          if (done) controller.close()
          else controller.enqueue(value)
        } catch (error) {
          controller.error(error)
        }
      },
    })
    return new Response(body, { status: res.status, headers: res.headers })
  }
  return {
    fetch: fetchFn,
    gets,
    /** Drops the open GET stream and holds the client's reconnect until `release`. */
    cut() {
      gate = new Promise<void>(r => (open = r))
      cut?.()
    },
    release: () => open(),
  }
}

/** A live SDK client of a session: what it heard, counted per URI. */
export async function liveClient(base: string, sessionId: string, token: string, fetchFn?: typeof fetch) {
  const client = new Client({ name: 'agent-vfs-live-test', version: '1' })
  const updated: string[] = []
  let listChanged = 0
  client.setNotificationHandler(ResourceUpdatedNotificationSchema, n => void updated.push(n.params.uri))
  client.setNotificationHandler(ResourceListChangedNotificationSchema, () => void listChanged++)
  const transport = new StreamableHTTPClientTransport(new URL(`${base}/sessions/${sessionId}/mcp`), {
    requestInit: { headers: { authorization: `Bearer ${token}` } },
    ...(fetchFn ? { fetch: fetchFn } : {}),
  })
  await client.connect(transport)
  return {
    client,
    updated,
    count: (uri: string) => updated.filter(u => u === uri).length,
    listChanged: () => listChanged,
    close: () => client.close(),
  }
}

/**
 * What every host's live MCP must do (Node, the Worker): subscriptions, notifications from the
 * session's file changes (an execution's too), a resumed stream that loses nothing and repeats
 * nothing, and nothing heard across owners.
 */
export function liveMcpSuite(target: McpTarget): void {
  const api = async (method: string, path: string, owner: string, body?: BodyInit, type = 'application/json') =>
    fetch(target.url() + path, {
      method,
      headers: {
        authorization: `Bearer ${await target.token(owner)}`,
        // A form sets its own (with the boundary).
        ...(body !== undefined && !(body instanceof FormData) ? { 'content-type': type } : {}),
      },
      ...(body !== undefined ? { body } : {}),
    })
  const newSession = async (owner = 'ana') => {
    const res = await api('POST', '/sessions', owner, JSON.stringify({ profile: 'appendix', title: 'live mcp' }))
    expect(res.status).toBe(201)
    return ((await res.json()) as { id: string }).id
  }
  const put = async (id: string, path: string, text: string) =>
    expect(
      (await api('PUT', `/sessions/${id}/file?path=${encodeURIComponent(path)}`, 'ana', text, 'application/octet-stream')).status,
    ).toBe(201)

  it('a client subscribed to /outputs/appendix.md hears resources/updated when an execution (scripted model) writes it', async () => {
    const id = await newSession()
    const form = new FormData()
    for (const [path, text] of Object.entries(generateEpisodes({ count: 3 }).files)) form.append('file', new Blob([text]), path)
    expect((await api('POST', `/sessions/${id}/files?dir=/context`, 'ana', form)).status).toBe(201)
    const live = await liveClient(target.url(), id, await target.token('ana'))
    await live.client.subscribeResource({ uri: 'vfs:///outputs/appendix.md' })
    expect((await api('POST', `/sessions/${id}/messages`, 'ana', JSON.stringify({ text: 'Write the appendix' }))).status).toBe(202)
    const waited = await until(() => live.count('vfs:///outputs/appendix.md') > 0, 'resources/updated of appendix.md', 60_000)
    console.log(`resources/updated of /outputs/appendix.md heard ${waited} ms after the message was accepted (whole execution included)`)
    expect(live.listChanged()).toBeGreaterThan(0)
    await live.close()
  })

  it('a dropped GET stream resumes with Last-Event-ID: what was missed arrives, once', async () => {
    const id = await newSession()
    const wire = cuttableFetch()
    const live = await liveClient(target.url(), id, await target.token('ana'), wire.fetch)
    const uri = 'vfs:///work/r1.md'
    await live.client.subscribeResource({ uri })
    await until(() => wire.gets.some(g => g.status === 200), 'the GET stream')
    await put(id, '/work/r1.md', 'one')
    await until(() => live.count(uri) === 1, 'the first notification')
    wire.cut()
    // Written while the client is away: its stream is gone, the notifications wait in the log.
    await put(id, '/work/r1.md', 'two')
    await put(id, '/work/r2.md', 'new file')
    await new Promise(r => setTimeout(r, 300))
    const before = live.listChanged()
    wire.release()
    await until(() => live.count(uri) === 2, 'the missed notification')
    await until(() => live.listChanged() > before, 'the missed list_changed')
    // A later write: heard once, and the missed one was not heard twice.
    await put(id, '/work/r1.md', 'three')
    await until(() => live.count(uri) === 3, 'the live notification after the resume')
    await new Promise(r => setTimeout(r, 300))
    expect(live.count(uri)).toBe(3)
    expect(live.updated.filter(u => u !== uri)).toEqual([])
    const resumed = wire.gets.at(-1)!
    expect(resumed.lastEventId).toMatch(/^\d+(:\d+)?$/)
    expect(resumed.status).toBe(200)
    await live.close()
  })

  it('unsubscribe stops resources/updated; list_changed still comes', async () => {
    const id = await newSession()
    const live = await liveClient(target.url(), id, await target.token('ana'))
    await live.client.subscribeResource({ uri: 'vfs:///work/u.md' })
    await live.client.unsubscribeResource({ uri: 'vfs:///work/u.md' })
    await put(id, '/work/u.md', 'x')
    await until(() => live.listChanged() > 0, 'list_changed')
    expect(live.updated).toEqual([])
    await live.close()
  })

  it('hostile: subscriptions per session are bounded', async () => {
    const id = await newSession()
    const live = await liveClient(target.url(), id, await target.token('ana'))
    for (let i = 0; i < 100; i++) await live.client.subscribeResource({ uri: `vfs:///work/s${i}.md` })
    await expect(live.client.subscribeResource({ uri: 'vfs:///work/one-more.md' })).rejects.toThrow(/subscriptions/)
    // A second client of the same session shares the bound.
    const other = await liveClient(target.url(), id, await target.token('ana'))
    await expect(other.client.subscribeResource({ uri: 'vfs:///work/other.md' })).rejects.toThrow(/subscriptions/)
    await live.client.unsubscribeResource({ uri: 'vfs:///work/s0.md' })
    await other.client.subscribeResource({ uri: 'vfs:///work/other.md' })
    await live.close()
    await other.close()
  })

  it("hostile: another owner cannot subscribe to or hear this session, nor use its client's id", async () => {
    const id = await newSession()
    const live = await liveClient(target.url(), id, await target.token('ana'))
    await live.client.subscribeResource({ uri: 'vfs:///work/secret.md' })
    const mcpId = (live.client.transport as StreamableHTTPClientTransport).sessionId!
    expect(mcpId).toMatch(/^mcp-[0-9a-f]{32}$/)
    const bob = await target.token('bob')
    const headers = { authorization: `Bearer ${bob}`, accept: 'text/event-stream', 'mcp-session-id': mcpId }
    expect((await fetch(`${target.url()}/sessions/${id}/mcp`, { headers })).status).toBe(404)
    // On his own session, ana's client id is refused (one host keeps both) or is a client of bob's
    // session only (each session's object keeps its own clients): either way he hears nothing of ana's.
    const bobs = await newSession('bob')
    const own = await fetch(`${target.url()}/sessions/${bobs}/mcp`, { headers })
    expect([200, 404]).toContain(own.status)
    if (own.status === 200) {
      const reader = own.body!.getReader()
      let heard = ''
      const reading = (async () => {
        for (;;) {
          const { done, value } = await reader.read()
          if (done) return
          heard += new TextDecoder().decode(value)
        }
      })().catch(() => undefined)
      await put(id, '/work/secret.md', 'ana only')
      await until(() => live.count('vfs:///work/secret.md') === 1, "ana's own notification")
      await new Promise(r => setTimeout(r, 300))
      await reader.cancel()
      await reading
      expect(heard).not.toContain('secret.md')
      expect(heard).not.toContain('list_changed')
    }
    const subscribe = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'resources/subscribe', params: { uri: 'vfs:///work/secret.md' } })
    const post = await fetch(`${target.url()}/sessions/${id}/mcp`, {
      method: 'POST',
      headers: { ...headers, accept: 'application/json, text/event-stream', 'content-type': 'application/json' },
      body: subscribe,
    })
    expect(post.status).toBe(404)
    await live.close()
  })
}
