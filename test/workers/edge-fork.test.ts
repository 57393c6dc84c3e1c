import { runDurableObjectAlarm, runInDurableObject } from 'cloudflare:test'
import { env } from 'cloudflare:workers'
import { beforeAll, describe, expect, it } from 'vitest'
import { durableObjectStore } from '../../src/index.js'
import { createSessionHost, DEFAULT_OWNER_QUOTA, newSessionId, type ForkSource } from '../../src/session/index.js'
import { FORK_PATH, scopeNames, type ForkRecord } from '../../src/session/storage.js'
import { d1OwnerIndex } from '../../src/worker/index.js'
import { forkSourceOf } from '../../src/worker/forks.js'
import { appendixProfile, call, configureEdge, createSession, events, expectJson, token } from './edge-harness.js'

// Forks on the Worker: the fork is a new Durable Object that copies the original's workspace as it
// was at the point (pages of at most 64 bytes of content here, so a small workspace takes many
// round trips between the two objects) and its events up to there; over quota it is refused; a
// copy cut half-way is finished by the fork's alarm, from where it stopped.
const PAGE_BYTES = 64
/** The namespace `SessionObject` keeps its scopes in (src/worker/session-object.ts). */
const NAMESPACE = 'sessions'

let ana: string
let bob: string
beforeAll(async () => {
  configureEdge({ forkPageBytes: PAGE_BYTES })
  ana = await token('ana')
  bob = await token('bob')
})

const put = (auth: string, id: string, path: string, body: string) =>
  expectJson(call('PUT', `/sessions/${id}/file?path=${encodeURIComponent(path)}`, auth, body), 201)

/** The session's files as path → content, read over HTTP. */
async function filesOf(auth: string, id: string): Promise<Record<string, string>> {
  const list = await expectJson<Array<{ path: string; kind?: string }>>(call('GET', `/sessions/${id}/files`, auth), 200)
  const out: Record<string, string> = {}
  for (const f of list.filter(f => f.kind !== 'dir')) {
    const res = await call('GET', `/sessions/${id}/file?path=${encodeURIComponent(f.path)}`, auth)
    expect(res.status).toBe(200)
    out[f.path] = await res.text()
  }
  return out
}

/** A session with 12 files (some rewritten, one deleted) at event `seq`, then edits after it; `files` is the workspace at `seq`. */
async function sessionWithHistory(auth: string) {
  const s = await createSession(auth)
  for (let i = 0; i < 12; i++) await put(auth, s.id, `/work/f${i}.md`, `first ${i} ${'x'.repeat(30)}`)
  await put(auth, s.id, '/work/f0.md', 'second 0')
  expect((await call('DELETE', `/sessions/${s.id}/file?path=/work/f1.md`, auth)).status).toBeLessThan(300)
  const seq = (await events(auth, s.id)).at(-1)!.seq
  const files = await filesOf(auth, s.id)
  await put(auth, s.id, '/work/f2.md', 'after the point')
  await put(auth, s.id, '/work/new.md', 'after the point')
  expect((await call('DELETE', `/sessions/${s.id}/file?path=/work/f3.md`, auth)).status).toBeLessThan(300)
  return { s, seq, files }
}

/** The fork equals the original at `seq`: files, and the events up to `seq` then `session-forked`. */
async function expectForkOf(auth: string, originalId: string, forkId: string, seq: number, files: Record<string, string>) {
  expect(await filesOf(auth, forkId)).toEqual(files)
  const original = (await events(auth, originalId)).filter(e => e.seq <= seq)
  const forked = await events(auth, forkId)
  expect(forked.slice(0, -1).map(e => [e.seq, e.type])).toEqual(original.map(e => [e.seq, e.type]))
  expect(forked.at(-1)).toMatchObject({ type: 'session-forked', from: originalId, fromSeq: seq })
  // The original's pin of the point is gone once the copy is complete.
  expect(await expectJson(call('GET', `/sessions/${originalId}/branches`, auth), 200)).toEqual([])
}

describe('forks across session objects', () => {
  it('a fork at sequence N holds the workspace as it was at N and the events up to N; both go on apart', async () => {
    const { s, seq, files } = await sessionWithHistory(ana)
    expect(Object.keys(files)).toHaveLength(11)
    expect((await call('POST', `/sessions/${s.id}/fork`, bob, { at: { seq } })).status).toBe(404)
    const fork = await expectJson<any>(call('POST', `/sessions/${s.id}/fork`, ana, { at: { seq }, title: 'try again' }), 201)
    expect(fork).toMatchObject({ owner: 'ana', profile: 'appendix', status: 'idle', title: 'try again' })
    expect(fork.id).not.toBe(s.id)
    await expectForkOf(ana, s.id, fork.id, seq, files)
    // The fork's versions continue after the point's, so a client tree built from the copied events stays ordered.
    const forked = (await events(ana, fork.id)).at(-1) as any
    const stat = await expectJson<any[]>(call('GET', `/sessions/${fork.id}/files`, ana), 200)
    expect(Math.min(...stat.filter(f => f.kind !== 'dir').map(f => f.version))).toBeGreaterThan(forked.version)

    // Each goes on alone: the original kept what came after the point, the fork writes its own.
    expect(await (await call('GET', `/sessions/${s.id}/file?path=/work/f2.md`, ana)).text()).toBe('after the point')
    await put(ana, fork.id, '/work/only-in-fork.md', 'x')
    expect((await call('GET', `/sessions/${s.id}/file?path=/work/only-in-fork.md`, ana)).status).toBe(404)
    const listed = await expectJson<any>(call('GET', '/sessions', ana), 200)
    expect(listed.items.map((r: any) => r.id)).toContain(fork.id)
  })

  it('a fork the owner has no bytes left for is refused with 413 and leaves nothing', async () => {
    const { s, seq } = await sessionWithHistory(ana)
    configureEdge({ forkPageBytes: PAGE_BYTES, quota: { ...DEFAULT_OWNER_QUOTA, maxBytes: 1 } })
    try {
      const refused = await expectJson<any>(call('POST', `/sessions/${s.id}/fork`, ana, { at: { seq } }), 413)
      expect(refused.error.code).toBe('quota')
    } finally {
      configureEdge({ forkPageBytes: PAGE_BYTES })
    }
    const listed = await expectJson<any>(call('GET', '/sessions?limit=100', ana), 200)
    expect(listed.items.filter((r: any) => r.title.endsWith('(fork)'))).toEqual([])
    expect(await expectJson(call('GET', `/sessions/${s.id}/branches`, ana), 200)).toEqual([])
  })

  it('a copy cut half-way (the object evicted) is finished by the fork object’s alarm from where it stopped', async () => {
    const { s, seq, files } = await sessionWithHistory(ana)
    const forkId = newSessionId()
    const hostOn = (state: DurableObjectState) =>
      createSessionHost({
        store: durableObjectStore(state.storage),
        namespace: NAMESPACE,
        agents: { appendix: appendixProfile() },
        exclusive: true,
        ownerIndex: d1OwnerIndex(env.DB),
        forkSource: (from, id) => forkSourceOf(env, from, id),
      })
    // The original's object offers the fork (pins the point), as forkAcross does.
    const offer = await runInDurableObject(env.SESSIONS.getByName(s.id), (_o, state) =>
      hostOn(state).remoteForks.offer(s.id, { seq }, forkId),
    )
    // The fork's object adopts it and dies after its third page: what is stored is all that is left.
    const progress = await runInDurableObject(env.SESSIONS.getByName(forkId), async (_o, state) => {
      let pages = 0
      const real = forkSourceOf(env, s.id, forkId)
      const dying: ForkSource = {
        ...real,
        page: cursor => (++pages > 3 ? Promise.reject(new Error('evicted')) : real.page(cursor)),
      }
      await expect(hostOn(state).remoteForks.adopt(offer, forkId, dying)).rejects.toThrow('evicted')
      await state.storage.setAlarm(Date.now() + 60_000)
      const meta = await durableObjectStore(state.storage).load(NAMESPACE, scopeNames.meta(forkId))
      const entry = meta.entries.find(e => e.path === FORK_PATH)!
      return JSON.parse(new TextDecoder().decode(entry.data)) as ForkRecord
    })
    expect(progress).toMatchObject({ from: s.id, remote: true, seq })
    expect(progress.cursor).toMatch(/^\/work\//)
    expect(progress.copied).toBeUndefined()
    expect(progress.done).toBeUndefined()

    expect(await runDurableObjectAlarm(env.SESSIONS.getByName(forkId))).toBe(true)
    const fork = await runInDurableObject(env.SESSIONS.getByName(forkId), async (_o, state) => {
      const meta = await durableObjectStore(state.storage).load(NAMESPACE, scopeNames.meta(forkId))
      return JSON.parse(new TextDecoder().decode(meta.entries.find(e => e.path === FORK_PATH)!.data)) as ForkRecord
    })
    expect(fork).toMatchObject({ copied: true, done: true })
    await expectForkOf(ana, s.id, forkId, seq, files)
  })
})
