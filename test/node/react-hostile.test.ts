import { expect, it } from 'vitest'
import { createSessionClient, eventPages, SessionApiError } from '../../src/client/index.js'
import { ChunkMapper } from '../../src/ai-sdk-ui/index.js'
import { sessionStore } from '../../src/react/index.js'

// A hostile (or broken) server against agent-vfs/react's store and agent-vfs/ai-sdk-ui's chunk mapper:
// a log page sent again and again, a log far longer than a view keeps, live text that rewrites itself.
const ID = 's0123456789abcdef0123456789abcdef'
const status = (seq: number) => ({ seq, at: 0, type: 'status', status: 'idle' })

/** A server whose log has `total` events (pages of `GET …/events`), or whose every page is the first one. */
function logServer(total: number, options: { samePage?: boolean } = {}) {
  let pages = 0
  const client = createSessionClient({
    baseUrl: 'http://log.test',
    token: 't',
    fetch: async input => {
      const url = new URL(String(input))
      if (url.pathname.endsWith('/events')) {
        pages++
        const after = options.samePage ? 0 : Number(url.searchParams.get('after'))
        const limit = Number(url.searchParams.get('limit'))
        const events = Array.from({ length: Math.max(0, Math.min(limit, total - after)) }, (_, i) => status(after + i + 1))
        return Response.json({ events })
      }
      // The stream: nothing more (the view is caught up); held open until the client goes.
      return new Response(new ReadableStream({ start: () => undefined }), { headers: { 'content-type': 'text/event-stream' } })
    },
  })
  return { client, pages: () => pages }
}

it('a server that sends the same page of the log forever is an error, not an endless catch-up', async () => {
  const { client, pages } = logServer(5000, { samePage: true })
  const error = await (async () => {
    for await (const _ of eventPages(client, ID));
  })().catch(e => e)
  expect(error).toBeInstanceOf(SessionApiError)
  expect(error).toMatchObject({ code: 'bad-response' })
  expect(pages()).toBe(2)
  // The hooks' store shows it as its error, once.
  const store = sessionStore(client, ID)
  const off = store.subscribe(() => undefined)
  await store.ready()
  expect(store.getSnapshot()).toMatchObject({ ready: true, error: { code: 'bad-response' } })
  off()
})

it('a long log costs a view no more than maxEvents events (the view itself keeps only its state)', async () => {
  const { client, pages } = logServer(25_000)
  const store = sessionStore(client, ID, { maxEvents: 100 })
  const off = store.subscribe(() => undefined)
  await store.ready()
  const snapshot = store.getSnapshot()
  expect(pages()).toBe(26)
  expect(snapshot.view.lastSeq).toBe(25_000)
  expect(snapshot.events.length).toBe(100)
  expect(snapshot.events[0]!.type === 'status' && snapshot.events[0]!.seq).toBe(24_901)
  off()
})

it('live text that rewrites or discards itself streams as appends only; the stored text settles it', () => {
  const mapper = new ChunkMapper()
  const base = { type: 'delta' as const, kind: 'text' as const, streamId: 'e1.1.0', executionId: 'e1' }
  const chunks = [
    ...mapper.map({ ...base, at: 0, delta: 'Hello' }),
    ...mapper.map({ ...base, at: 2, delta: 'XYZ' }), // a retried call rewrote from 2: not an append, not sent
    ...mapper.map({ ...base, at: 5, delta: ' world' }),
    ...mapper.map({ type: 'text', text: 'Hello world!', streamId: 'e1.1.0', executionId: 'e1', executionSeq: 1, seq: 9, at: 0 }),
    ...mapper.map({ ...base, at: 0, delta: 'late' }), // a delta replayed after the stored text: ignored
  ]
  expect(chunks).toEqual([
    { type: 'text-start', id: 'e1.1.0' },
    { type: 'text-delta', id: 'e1.1.0', delta: 'Hello' },
    { type: 'text-delta', id: 'e1.1.0', delta: ' world' },
    { type: 'text-delta', id: 'e1.1.0', delta: '!' },
    { type: 'text-end', id: 'e1.1.0' },
  ])
  expect(mapper.end()).toEqual([])
})
