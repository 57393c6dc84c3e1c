import { abortAllDurableObjects } from 'cloudflare:test'
import { beforeAll, describe, expect, it } from 'vitest'
import { call, createSession, token } from './edge-harness.js'

// Live MCP in the session's Durable Object (the repository's worker-edge mounts sessionMcp): a
// client's subscription, its GET stream of notifications from the object's file-change events, a
// resume with Last-Event-ID, and what a client sees after the object is evicted.
let ana: string
beforeAll(async () => {
  ana = await token('ana')
})

const accept = 'application/json, text/event-stream'
const rpc = (id: string, mcpId: string | undefined, body: unknown) =>
  call('POST', `/sessions/${id}/mcp`, ana, body, { accept, ...(mcpId ? { 'mcp-session-id': mcpId } : {}) })

async function initialize(id: string): Promise<string> {
  const res = await rpc(id, undefined, {
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'edge-live', version: '1' } },
  })
  expect(res.status).toBe(200)
  const body = (await res.json()) as { result: { capabilities: { resources: unknown } } }
  expect(body.result.capabilities.resources).toEqual({ subscribe: true, listChanged: true })
  return res.headers.get('mcp-session-id')!
}

const stream = (id: string, mcpId: string, lastEventId?: string) =>
  call('GET', `/sessions/${id}/mcp`, ana, undefined, {
    accept: 'text/event-stream',
    'mcp-session-id': mcpId,
    ...(lastEventId ? { 'last-event-id': lastEventId } : {}),
  })

const put = async (id: string, path: string, text: string) =>
  expect((await call('PUT', `/sessions/${id}/file?path=${path}`, ana, text, { 'content-type': 'application/octet-stream' })).status).toBe(
    201,
  )

/** SSE events of a stream, read until `enough` holds for what was read. */
async function readUntil(res: Response, enough: (events: { id?: string; data: string }[]) => boolean) {
  const reader = res.body!.getReader()
  const decoder = new TextDecoder()
  let text = ''
  const events: { id?: string; data: string }[] = []
  while (!enough(events)) {
    const { done, value } = await reader.read()
    if (done) break
    text += decoder.decode(value, { stream: true })
    let end: number
    while ((end = text.indexOf('\n\n')) >= 0) {
      const block = text.slice(0, end)
      text = text.slice(end + 2)
      const id = /^id: (.*)$/m.exec(block)?.[1]
      const data = /^data: ?(.*)$/m.exec(block)?.[1] ?? ''
      events.push({ ...(id ? { id } : {}), data })
    }
  }
  await reader.cancel()
  return events
}

const updatedOf = (events: { data: string }[], uri: string) =>
  events.filter(e => e.data.includes('notifications/resources/updated') && e.data.includes(uri))

describe('live MCP in the Durable Object', () => {
  it('a subscribed client hears resources/updated on its GET stream; a resume with Last-Event-ID gets what it missed, once', async () => {
    const s = await createSession(ana)
    const mcpId = await initialize(s.id)
    expect(
      (await rpc(s.id, mcpId, { jsonrpc: '2.0', id: 2, method: 'resources/subscribe', params: { uri: 'vfs:///work/a.md' } })).status,
    ).toBe(200)
    const first = await stream(s.id, mcpId)
    expect(first.status).toBe(200)
    const [, heard] = await Promise.all([
      put(s.id, '/work/a.md', 'one'),
      readUntil(first, ev => updatedOf(ev, 'vfs:///work/a.md').length === 1),
    ])
    const last = heard.filter(e => e.id).at(-1)!.id!
    // Away: two writes; back with the last id it saw.
    await put(s.id, '/work/a.md', 'two')
    await put(s.id, '/work/a.md', 'three')
    const resumed = await readUntil(await stream(s.id, mcpId, last), ev => updatedOf(ev, 'vfs:///work/a.md').length >= 2)
    expect(updatedOf(resumed, 'vfs:///work/a.md')).toHaveLength(2)
    // Resuming from the end of that: nothing again, the next write only.
    const end = resumed.filter(e => e.id).at(-1)!.id!
    const again = stream(s.id, mcpId, end)
    await put(s.id, '/work/b.md', 'new')
    const next = await readUntil(await again, ev => ev.some(e => e.data.includes('list_changed')))
    expect(updatedOf(next, 'vfs:///work/a.md')).toHaveLength(0)
  })

  it('after the object is evicted, the client reconnects with its id and Last-Event-ID and hears every file changed meanwhile', async () => {
    const s = await createSession(ana)
    const mcpId = await initialize(s.id)
    await rpc(s.id, mcpId, { jsonrpc: '2.0', id: 2, method: 'resources/subscribe', params: { uri: 'vfs:///work/e.md' } })
    const before = await readUntil(await stream(s.id, mcpId), ev => ev.length >= 1)
    const last = before[0].id!
    await abortAllDurableObjects()
    await put(s.id, '/work/e.md', 'written after the eviction')
    const resumed = await readUntil(await stream(s.id, mcpId, last), ev => updatedOf(ev, 'vfs:///work/e.md').length === 1)
    expect(updatedOf(resumed, 'vfs:///work/e.md')).toHaveLength(1)
  })

  it("hostile: another owner's token gets 404 on the stream and on subscribe", async () => {
    const s = await createSession(ana)
    const mcpId = await initialize(s.id)
    const bob = await token('bob')
    const get = await call('GET', `/sessions/${s.id}/mcp`, bob, undefined, { accept: 'text/event-stream', 'mcp-session-id': mcpId })
    expect(get.status).toBe(404)
    const sub = await call(
      'POST',
      `/sessions/${s.id}/mcp`,
      bob,
      { jsonrpc: '2.0', id: 2, method: 'resources/subscribe', params: { uri: 'vfs:///work/a.md' } },
      { accept, 'mcp-session-id': mcpId },
    )
    expect(sub.status).toBe(404)
  })
})
