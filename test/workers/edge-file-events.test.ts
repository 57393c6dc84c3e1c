import { beforeAll, describe, expect, it } from 'vitest'
import { readSse } from '../session/sse.js'
import { call, createSession, expectJson, token } from './edge-harness.js'

// Live file changes on the Worker: a write through the API reaches a session object's WebSocket
// and SSE observers as a files-changed event, attributed to the API.
let ana: string
beforeAll(async () => {
  ana = await token('ana')
})

describe('files-changed events of a session object', () => {
  it('a PUT reaches a WebSocket observer live and an SSE reconnect from after=', async () => {
    const s = await createSession(ana)
    const res = await call('GET', `/sessions/${s.id}/ws?after=1`, ana, undefined, { upgrade: 'websocket' })
    expect(res.status).toBe(101)
    const ws = res.webSocket!
    const heard = new Promise<any>((resolve, reject) => {
      ws.addEventListener('message', m => {
        const e = JSON.parse(m.data as string)
        if (e.type === 'files-changed') resolve(e)
      })
      ws.addEventListener('error', () => reject(new Error('socket error')))
    })
    ws.accept()
    await expectJson(call('PUT', `/sessions/${s.id}/file?path=/work/notes.md`, ana, 'hello'), 201)
    const live = await heard
    ws.close(1000)
    expect(live).toMatchObject({
      type: 'files-changed',
      by: { kind: 'api' },
      changes: [{ path: '/work/notes.md', op: 'added', size: 5, mimeType: 'text/markdown' }],
    })
    expect(live.changes[0].version).toBe(live.version)
    const stat = (await expectJson<any[]>(call('GET', `/sessions/${s.id}/files?prefix=/work`, ana), 200)).find(
      f => f.path === '/work/notes.md',
    )
    expect(stat.version).toBe(live.version)

    // A delete, then an SSE stream resumed after the first change gets the delete and nothing before.
    await expectJson(call('DELETE', `/sessions/${s.id}/file?path=/work/notes.md`, ana), 200)
    const messages = await readSse(
      await call('GET', `/sessions/${s.id}/stream`, ana, undefined, { 'last-event-id': String(live.seq) }),
      m => m.event === 'files-changed',
    )
    const deleted = JSON.parse(messages.find(m => m.event === 'files-changed')!.data!)
    expect(deleted.seq).toBeGreaterThan(live.seq)
    expect(deleted.changes).toEqual([
      { path: '/work/notes.md', op: 'deleted', version: deleted.version, size: 0, mimeType: 'text/markdown' },
    ])
  })
})
