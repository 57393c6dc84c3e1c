import { beforeAll, describe, expect, it } from 'vitest'
import { APPENDIX_INSTRUCTIONS } from '../../fixtures/script-appendix/task.js'
import { readSse } from '../session/sse.js'
import { call, createSession, events, expectJson, token, uploadSeason, waitStatus } from './edge-harness.js'

// Observers of a session object: SSE with Last-Event-ID and hibernatable WebSockets with ?after=,
// each reconnecting mid-run (the session waits for a person between two parts of its run).
let ana: string
beforeAll(async () => {
  ana = await token('ana')
})

/** Opens the session's WebSocket after `after`; collects event sequences until `stop` holds for an event. */
async function wsUntil(id: string, after: number, stop: (e: any) => boolean, onOpen?: () => Promise<void>): Promise<any[]> {
  const res = await call('GET', `/sessions/${id}/ws?after=${after}`, ana, undefined, { upgrade: 'websocket' })
  expect(res.status).toBe(101)
  const ws = res.webSocket!
  const got: any[] = []
  const done = new Promise<void>((resolve, reject) => {
    ws.addEventListener('message', m => {
      const e = JSON.parse(m.data as string)
      got.push(e)
      if (stop(e)) resolve()
    })
    ws.addEventListener('close', () => resolve())
    ws.addEventListener('error', () => reject(new Error('socket error')))
  })
  ws.accept()
  await onOpen?.()
  await done
  ws.close(1000)
  return got
}

const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i)

describe('observers of a session object', () => {
  it('SSE and WebSocket reconnects get exactly the missing events, then live ones', async () => {
    const s = await createSession(ana, 'appendix-asking')
    await uploadSeason(ana, s.id)
    await expectJson(call('POST', `/sessions/${s.id}/messages`, ana, { text: APPENDIX_INSTRUCTIONS }), 202)
    await waitStatus(ana, s.id, ['waiting_input'])
    const stored = await events(ana, s.id)
    const last = stored.at(-1)!.seq
    const mid = Math.floor(last / 2)

    // SSE: the first connection stops at `mid`, the second resumes with Last-Event-ID.
    const first = await readSse(await call('GET', `/sessions/${s.id}/stream`, ana), m => m.id === String(mid))
    const second = await readSse(
      await call('GET', `/sessions/${s.id}/stream`, ana, undefined, { 'last-event-id': String(mid) }),
      m => m.id === String(last),
    )
    const ids = (ms: { id?: string }[]) => ms.filter(m => m.id).map(m => Number(m.id))
    expect([...ids(first), ...ids(second)]).toEqual(range(1, last))

    // WebSocket: connected after `mid`, it first gets exactly mid+1 … last.
    const caughtUp = await wsUntil(s.id, mid, e => e.seq === last)
    expect(caughtUp.map(e => e.seq)).toEqual(range(mid + 1, last))
    expect(caughtUp.at(-1)).toMatchObject({ type: stored.at(-1)!.type })

    // Live: a socket at `last` gets what answering the question produces, in order, no gap, until the next wait.
    const [question] = await expectJson<any[]>(call('GET', `/sessions/${s.id}/pending`, ana), 200)
    const live = await wsUntil(
      s.id,
      last,
      e => e.type === 'approval-required',
      async () => {
        await expectJson(call('POST', `/sessions/${s.id}/pending/${question.id}`, ana, { answer: 'Season One' }), 202)
      },
    )
    const liveLast = live.at(-1)!.seq
    expect(live.map(e => e.seq)).toEqual(range(last + 1, liveLast))
    // A reconnect in the middle of those: exactly the rest, over both transports.
    const cut = last + Math.floor((liveLast - last) / 2)
    expect((await wsUntil(s.id, cut, e => e.seq === liveLast)).map(e => e.seq)).toEqual(range(cut + 1, liveLast))
    const sse = await readSse(await call('GET', `/sessions/${s.id}/stream?after=${cut}`, ana), m => m.id === String(liveLast))
    expect(ids(sse)).toEqual(range(cut + 1, liveLast))
    // What the sockets got is what the log holds.
    expect(live).toEqual((await events(ana, s.id, last)).slice(0, live.length))
  })

  it('sockets at many sequences, opened at once beside an SSE stream, share the tail: each gets exactly its events', async () => {
    const s = await createSession(ana, 'appendix-asking')
    await uploadSeason(ana, s.id)
    await expectJson(call('POST', `/sessions/${s.id}/messages`, ana, { text: APPENDIX_INSTRUCTIONS }), 202)
    await waitStatus(ana, s.id, ['waiting_input'])
    const last = (await events(ana, s.id)).at(-1)!.seq
    const [question] = await expectJson<any[]>(call('GET', `/sessions/${s.id}/pending`, ana), 200)
    // Ten sockets from 0, last/2 … last (several at one sequence), all open while the answer's events are appended.
    const cursors = Array.from({ length: 10 }, (_, i) => Math.floor((last * (i % 5)) / 4))
    const stop = (e: any) => e.type === 'approval-required'
    let answered: Promise<unknown> | undefined
    const sse = call('GET', `/sessions/${s.id}/stream?after=${last}`, ana).then(res => readSse(res, m => m.event === 'approval-required'))
    const got = await Promise.all(
      cursors.map((after, i) =>
        wsUntil(s.id, after, stop, async () => {
          if (i === cursors.length - 1)
            answered = expectJson(call('POST', `/sessions/${s.id}/pending/${question.id}`, ana, { answer: 'Season One' }), 202)
        }),
      ),
    )
    await answered
    const end = got[0].at(-1)!.seq
    cursors.forEach((after, i) => expect(got[i].map(e => e.seq)).toEqual(range(after + 1, end)))
    expect((await sse).filter(m => m.id).map(m => Number(m.id))).toEqual(range(last + 1, end))
  })

  it('with ?batch=1 a WebSocket gets each read as one message, a JSON array: the catch-up in one, then the live batches', async () => {
    const s = await createSession(ana, 'appendix-asking')
    await uploadSeason(ana, s.id)
    await expectJson(call('POST', `/sessions/${s.id}/messages`, ana, { text: APPENDIX_INSTRUCTIONS }), 202)
    await waitStatus(ana, s.id, ['waiting_input'])
    const stored = await events(ana, s.id)
    const last = stored.at(-1)!.seq
    const [question] = await expectJson<any[]>(call('GET', `/sessions/${s.id}/pending`, ana), 200)
    const res = await call('GET', `/sessions/${s.id}/ws?after=0&batch=1`, ana, undefined, { upgrade: 'websocket' })
    expect(res.status).toBe(101)
    const ws = res.webSocket!
    const messages: any[][] = []
    const done = new Promise<void>(resolve => {
      ws.addEventListener('message', m => {
        messages.push(JSON.parse(m.data as string))
        if (messages.at(-1)!.some(e => e.type === 'approval-required')) resolve()
      })
    })
    ws.accept()
    // The catch-up first, in one message, before any live event exists.
    await new Promise<void>(r => {
      const t = setInterval(() => messages.length > 0 && (clearInterval(t), r()), 10)
    })
    expect(messages[0]).toEqual(stored)
    await expectJson(call('POST', `/sessions/${s.id}/pending/${question.id}`, ana, { answer: 'Season One' }), 202)
    await done
    ws.close(1000)
    const all = messages.flat()
    expect(messages.every(m => Array.isArray(m) && m.length > 0)).toBe(true)
    expect(all.map(e => e.seq)).toEqual(range(1, all.at(-1).seq))
    expect(all.slice(last)).toEqual((await events(ana, s.id, last)).slice(0, all.length - last))
  })

  it('a WebSocket ends after session-closed; `ping` gets `pong`; a plain GET is 426', async () => {
    const s = await createSession(ana)
    expect((await call('GET', `/sessions/${s.id}/ws`, ana)).status).toBe(426)
    const got = await wsUntil(
      s.id,
      0,
      e => e.type === 'session-closed',
      async () => {
        await expectJson(call('POST', `/sessions/${s.id}/close`, ana), 200)
      },
    )
    expect(got.map(e => e.type)).toEqual(['session-created', 'session-closed'])
    const res = await call('GET', `/sessions/${s.id}/ws?after=2`, ana, undefined, { upgrade: 'websocket' })
    const ws = res.webSocket!
    const pong = new Promise<string>(r => ws.addEventListener('message', m => r(m.data as string)))
    ws.accept()
    ws.send('ping')
    expect(await pong).toBe('pong')
    ws.close(1000)
  })

  it('a browser WebSocket may carry the token as a subprotocol; the server chooses `agent-vfs`', async () => {
    const s = await createSession(ana)
    const upgrade = (protocols: string) =>
      call('GET', `/sessions/${s.id}/ws`, undefined, undefined, { upgrade: 'websocket', 'sec-websocket-protocol': protocols })
    const res = await upgrade(`agent-vfs, bearer.${ana}`)
    expect(res.status).toBe(101)
    expect(res.headers.get('sec-websocket-protocol')).toBe('agent-vfs')
    const ws = res.webSocket!
    const first = new Promise<any>(r => ws.addEventListener('message', m => r(JSON.parse(m.data as string))))
    ws.accept()
    expect(await first).toMatchObject({ seq: 1, type: 'session-created' })
    ws.close(1000)
    expect((await upgrade(`agent-vfs, bearer.${await token('bob')}`)).status).toBe(404)
    expect((await upgrade('agent-vfs, bearer.not.a.jwt')).status).toBe(401)
    // Only on an upgrade: a plain request with the subprotocol header is not authenticated by it.
    expect((await call('GET', `/sessions/${s.id}`, undefined, undefined, { 'sec-websocket-protocol': `bearer.${ana}` })).status).toBe(401)
  })
})
