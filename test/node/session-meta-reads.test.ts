import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { memoryStore, type VfsStore } from '../../src/index.js'
import { createSessionApp, createSessionHost, mintToken, type SessionHost } from '../../src/session/index.js'
import { gatedAppendix, until } from '../session/harness.js'

// A session is loaded once per request and handed down (issue 29): what one request costs in reads of
// the session's meta scope, counted as the benches count round trips, on the real memory store.

/** The real memory store, counting the round trips that read a session's meta scope (a load, or a loadMany with it). */
function countingStore(): { store: VfsStore; metaReads: () => number; reset: () => void } {
  const inner = memoryStore()
  let reads = 0
  const isMeta = (scope: string) => scope.startsWith('session/')
  const store: VfsStore = Object.assign(Object.create(inner) as VfsStore, {
    load: (ns: string, scope: string) => {
      if (isMeta(scope)) reads++
      return inner.load(ns, scope)
    },
    loadMany: (ns: string, scopes: readonly string[]) => {
      if (scopes.some(isMeta)) reads++
      return inner.loadMany ? inner.loadMany(ns, scopes) : Promise.all(scopes.map(scope => inner.load(ns, scope)))
    },
  })
  return { store, metaReads: () => reads, reset: () => (reads = 0) }
}

const secret = 'meta-reads-secret-meta-reads-secret-0123'
const counted = countingStore()
const gated = gatedAppendix(1)
let host: SessionHost
let app: ReturnType<typeof createSessionApp>
let token: string

beforeAll(async () => {
  host = createSessionHost({ store: counted.store, agents: { gated: gated.profile }, pollMs: 20 })
  app = createSessionApp(host, { auth: { secret } })
  token = await mintToken(secret, 'ana')
})
afterAll(() => host.stop())

const call = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
  app.request(path, {
    method,
    headers: { authorization: `Bearer ${token}`, ...headers, ...(body ? { 'content-type': 'application/json' } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  })

describe('meta reads per request', () => {
  let id: string

  it('POST /messages reads the session meta at most 4 times before the model is called (the request, the lease, the decision, one update)', async () => {
    id = ((await (await call('POST', '/sessions', { profile: 'gated' })).json()) as { id: string }).id
    counted.reset()
    const res = await call('POST', `/sessions/${id}/messages`, { text: 'Write the appendix' })
    expect(res.status).toBe(202)
    // The model's first call waits at the gate: everything before it has happened.
    await gated.reached
    const reads = counted.metaReads()
    gated.open()
    await until(host, id, ['idle'])
    expect(reads).toBeLessThanOrEqual(4)
  })

  it('an SSE reconnect (Last-Event-ID) reads the session meta at most twice before its first batch (the request, the start of the session tail on this host)', async () => {
    const last = ((await (await call('GET', `/sessions/${id}/events?limit=1000`)).json()) as { events: { seq: number }[] }).events
    expect(last.length).toBeGreaterThan(2)
    counted.reset()
    const res = await call('GET', `/sessions/${id}/stream`, undefined, { 'last-event-id': String(last.length - 2) })
    expect(res.status).toBe(200)
    const reader = res.body!.getReader()
    const first = new TextDecoder().decode((await reader.read()).value)
    expect(first).toContain(`id: ${last.length - 1}`)
    const reads = counted.metaReads()
    await reader.cancel()
    expect(reads).toBeLessThanOrEqual(2)
  })
})
