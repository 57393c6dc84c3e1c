import { beforeAll, describe, expect, it } from 'vitest'
import { scriptedModel } from '../../src/agent/index.js'
import { readSse } from '../session/sse.js'
import { call, configureEdge, createSession, expectJson, token } from './edge-harness.js'

// Streamed text on the Worker: a session object's WebSocket and SSE stream with ?live=1 get the
// text as it is generated (deltas without seq, never stored), then the stored text.
const REPLY = Array.from({ length: 40 }, (_, i) => `word${i}`).join(' ') + '.'
let ana: string
beforeAll(async () => {
  configureEdge({
    agents: { talk: { setup: () => ({ model: scriptedModel(() => ({ text: REPLY }), { chunkChars: 3, chunkDelayMs: 4 }) }) } },
  })
  ana = await token('ana')
})

type Delta = { type: 'delta'; at: number; delta: string; streamId: string; seq?: number }
const apply = (ds: Delta[]) => ds.reduce((t, d) => t.slice(0, d.at) + d.delta, '')

describe('streamed text on the Worker', () => {
  it('a WebSocket with ?live=1 gets the deltas, each character once, then the stored text', async () => {
    const s = await createSession(ana, 'talk')
    const res = await call('GET', `/sessions/${s.id}/ws?after=0&live=1`, ana, undefined, { upgrade: 'websocket' })
    expect(res.status).toBe(101)
    const ws = res.webSocket!
    const got: Array<{ type: string; seq?: number; text?: string; streamId?: string }> = []
    const done = new Promise<void>(resolve => {
      ws.addEventListener('message', m => {
        const e = JSON.parse(m.data as string)
        got.push(e)
        if (e.type === 'execution-end') resolve()
      })
    })
    ws.accept()
    await expectJson(call('POST', `/sessions/${s.id}/messages`, ana, { text: 'talk' }), 202)
    await done
    ws.close(1000)
    const deltas = got.filter((e): e is Delta => e.type === 'delta')
    const text = got.find(e => e.type === 'text')!
    expect(text.text).toBe(REPLY)
    expect(deltas.length).toBeGreaterThan(0)
    expect(deltas.every(d => d.seq === undefined && d.streamId === text.streamId)).toBe(true)
    expect(apply(deltas)).toBe(REPLY)
    expect(deltas.reduce((n, d) => n + d.delta.length, 0)).toBe(REPLY.length)
    expect(got.indexOf(deltas[0])).toBeLessThan(got.indexOf(text))
    // Stored events: every seq once, in order.
    const seqs = got.filter(e => e.seq !== undefined).map(e => e.seq!)
    expect(seqs).toEqual(seqs.map((_, i) => i + 1))
  })

  it('the SSE stream with ?live=1 gets delta messages without ids', async () => {
    const s = await createSession(ana, 'talk')
    const res = await call('GET', `/sessions/${s.id}/stream?live=1`, ana)
    await expectJson(call('POST', `/sessions/${s.id}/messages`, ana, { text: 'talk' }), 202)
    const messages = await readSse(res, m => m.event === 'execution-end')
    const deltas = messages.filter(m => m.event === 'delta')
    expect(deltas.every(m => m.id === undefined)).toBe(true)
    expect(apply(deltas.map(m => JSON.parse(m.data!) as Delta))).toBe(REPLY)
  })
})
