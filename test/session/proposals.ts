import { afterAll, beforeAll, expect, it } from 'vitest'
import { scriptAppendixProfile } from '../../fixtures/script-appendix/profile.js'
import { APPENDIX_INSTRUCTIONS } from '../../fixtures/script-appendix/task.js'
import type { VfsStore } from '../../src/contract/store.js'
import { createSessionApp, createSessionHost, mintToken, type AgentProfile, type SessionHost } from '../../src/session/index.js'
import { scriptedModel } from '../../src/agent/index.js'
import { beforeCommits, season, until } from './harness.js'
import { listen } from './http-client.js'
import { uploadForm } from './route-requests.js'

/** Short, so the next host takes over a dead host's fresh work entry soon (see WorkEntry.host). */
const LEASE_MS = 1500
const secret = 'test-secret-test-secret-test-secret-0123'

/** The appendix profile with every execution's writes routed into a branch for review. */
export function proposingAppendix(): AgentProfile {
  const base = scriptAppendixProfile()
  return { ...base, setup: async e => ({ ...(await base.setup(e)), writes: 'propose' as const }) }
}

/** A proposing profile whose model tries its change in an attempt (a branch of the proposal's branch) and commits it there. */
function attemptingProfile(): AgentProfile {
  const calls = [
    { toolName: 'attempt_start', input: { name: 'a' } },
    { toolName: 'attempt_write', input: { name: 'a', path: '/work/try.md', content: 'the attempt\n' } },
    { toolName: 'attempt_commit', input: { name: 'a' } },
  ]
  return {
    setup: () => ({
      model: scriptedModel(({ call }) => (call < calls.length ? { toolCalls: [calls[call]] } : { text: 'done' })),
      writes: 'propose',
      branchTools: true,
    }),
  }
}

/** `store`, whose commit of a proposal's landing (a commit of /outputs/appendix.md to a session's own scope) fails once when `fail()` says so. */
function failingLanding(store: VfsStore, fail: () => boolean): VfsStore {
  return beforeCommits(store, (scope, ops) => {
    if (!scope.includes('#') && ops.some(o => o.path === '/outputs/appendix.md') && fail()) throw new Error('the host died mid-landing')
  })
}

/**
 * Propose → review → apply on one store, over HTTP: an execution of a `writes: 'propose'` profile
 * writes into a branch, reads its own writes, and ends with an approval whose payload is the diff;
 * approving lands it as one commit, denying discards it, a person's edit in between is a conflict
 * (nothing written), and a new host on the same store (a restart) finds the proposal and finishes a
 * decision stored before the crash.
 */
export function describeProposals(getStore: () => Promise<VfsStore>) {
  let store: VfsStore
  let namespace: string
  let host: SessionHost
  let server: Awaited<ReturnType<typeof listen>>
  let ana: string
  const newHost = () =>
    createSessionHost({
      store,
      agents: { appendix: proposingAppendix(), attempts: attemptingProfile() },
      namespace,
      pollMs: 20,
      quota: { maxSessions: 50 },
      leaseMs: LEASE_MS,
    })
  let failLanding = false
  beforeAll(async () => {
    store = failingLanding(await getStore(), () => {
      const fail = failLanding
      failLanding = false
      return fail
    })
    namespace = `p${Math.random().toString(36).slice(2)}`
    host = newHost()
    server = await listen(createSessionApp(host, { auth: { secret } }).fetch)
    ana = await mintToken(secret, 'ana')
  })
  afterAll(async () => {
    await host?.stop()
    await server?.close()
  })

  const call = async (method: string, path: string, body?: unknown) => {
    const raw = body instanceof FormData || typeof body === 'string'
    const res = await fetch(server.url + path, {
      method,
      headers: { authorization: `Bearer ${ana}`, ...(body !== undefined && !raw ? { 'content-type': 'application/json' } : {}) },
      ...(body !== undefined ? { body: raw ? (body as BodyInit) : JSON.stringify(body) } : {}),
    })
    const text = await res.text()
    return { status: res.status, body: res.headers.get('content-type')?.includes('json') ? JSON.parse(text) : undefined, text }
  }
  /** A session whose first execution ran to its proposal (the session waits for review). */
  const proposed = async () => {
    const s = (await call('POST', '/sessions', { profile: 'appendix', title: 'propose' })).body
    expect((await call('POST', `/sessions/${s.id}/files`, uploadForm(season()))).status).toBe(201)
    expect((await call('POST', `/sessions/${s.id}/messages`, { text: APPENDIX_INSTRUCTIONS })).status).toBe(202)
    await until(host, s.id, ['waiting_approval'])
    return s.id as string
  }

  it('the execution writes into a branch and reads its own writes; the approval is the diff; approving lands ONE commit', async () => {
    const id = await proposed()
    const [execution] = await host.executions(id)
    expect(execution.status).toBe('completed') // its result contract read the files it wrote
    // Nothing has landed: the workspace has no outputs, its history no execution change outside /state.
    expect((await call('GET', `/sessions/${id}/file?path=/outputs/appendix.md`)).status).toBe(404)
    const own = (await host.changes.history(id, { execution: 'e0001' })).flatMap(e => e.changes.map(c => c.path))
    expect(own.filter(p => !p.startsWith('/state/'))).toEqual([])
    const pending = (await call('GET', `/sessions/${id}/pending`)).body
    expect(pending).toHaveLength(1)
    const [p] = pending
    expect(p).toMatchObject({ id: 'e0001-proposal', kind: 'approval', toolName: 'apply_changes', proposal: { branch: 'propose-e0001' } })
    const added = p.proposal.diff.entries.filter((e: any) => e.status === 'added').map((e: any) => e.path)
    expect(added).toEqual(expect.arrayContaining(['/outputs/appendix.md', '/outputs/assets.json']))
    expect(p.proposal.diff.entries.every((e: any) => !e.path.startsWith('/state/'))).toBe(true)
    expect(p.proposal.diff.entries.find((e: any) => e.path === '/outputs/appendix.md').patch).toMatch(/^\+/m)
    // The card's sentence counts files, not the folders the diff also lists (/outputs).
    const files = p.proposal.diff.entries.filter((e: any) => e.kind === 'file').length
    expect(p.proposal.diff.entries.length).toBeGreaterThan(files)
    expect(p.input.files).toBe(files)
    expect(p.reason).toContain(`changes to ${files} file(s)`)
    // The diff was computed once, when the execution ended, and stored beside the proposal's record
    // (issue 27): every read of the pending list shows that, without diffing again.
    await host.settled(id)
    const stored = await call('GET', `/sessions/${id}/file?path=/state/proposals/e0001.diff.json`)
    expect(stored.status).toBe(200)
    expect((await call('GET', `/sessions/${id}/pending`)).body[0].proposal.diff).toEqual(JSON.parse(stored.text))

    const answered = await call('POST', `/sessions/${id}/pending/e0001-proposal`, { decision: 'approve' })
    expect(answered.status).toBe(200)
    expect(answered.body.status).toBe('landed')
    // One commit holds every proposed file, tagged as the person's landing of e0001.
    const landing = await host.changes.history(id, { after: answered.body.version - 1, upTo: answered.body.version })
    expect(landing).toHaveLength(1)
    expect(landing[0].changes.map(c => c.path)).toEqual(expect.arrayContaining(added))
    expect(landing[0].changes.every(c => (c.actor as any)?.proposal === 'e0001')).toBe(true)
    expect((await call('GET', `/sessions/${id}/file?path=/outputs/appendix.md`)).text.length).toBeGreaterThan(100)
    expect((await call('GET', `/sessions/${id}/branches`)).body.map((b: any) => b.name)).not.toContain('propose-e0001')
    expect((await call('GET', `/sessions/${id}/pending`)).body).toEqual([])
    expect(await until(host, id, ['idle'])).toBe('idle')
    // Answered is answered.
    expect((await call('POST', `/sessions/${id}/pending/e0001-proposal`, { decision: 'approve' })).status).toBe(409)
    const events = await host.events(id)
    expect(events.find(e => e.type === 'pending-answered')).toMatchObject({ pendingId: 'e0001-proposal', answer: { decision: 'approve' } })
    expect(
      events.some(e => e.type === 'files-changed' && e.by.kind === 'api' && e.changes.some(c => c.path === '/outputs/appendix.md')),
    ).toBe(true)
    // The execution's Changes and Undo cover its landed proposal.
    const changes = (await call('GET', `/sessions/${id}/diff?execution=e0001`)).body
    expect(changes.entries.map((e: any) => e.path)).toEqual(expect.arrayContaining(added))
    expect((await call('POST', `/sessions/${id}/executions/e0001/revert`)).status).toBe(200)
    expect((await call('GET', `/sessions/${id}/file?path=/outputs/appendix.md`)).status).toBe(404)
  })

  it('a person edited a proposed file since: approving writes nothing and answers with the conflicts; the branch stays', async () => {
    const id = await proposed()
    expect((await call('PUT', `/sessions/${id}/file?path=/outputs/appendix.md`, 'a person wrote this first')).status).toBe(201)
    const refused = await call('POST', `/sessions/${id}/pending/e0001-proposal`, { decision: 'approve' })
    expect(refused.status).toBe(409)
    // (The person's write made /outputs too, which the branch also made: the workspace's commit check counts it.)
    expect(refused.body.conflicts.map((c: any) => c.path).filter((p: string) => p !== '/outputs')).toEqual(['/outputs/appendix.md'])
    expect((await call('GET', `/sessions/${id}/file?path=/outputs/assets.json`)).status).toBe(404)
    expect((await call('GET', `/sessions/${id}/file?path=/outputs/appendix.md`)).text).toBe('a person wrote this first')
    expect((await call('GET', `/sessions/${id}/pending`)).body).toEqual([])
    expect((await call('GET', `/sessions/${id}/branches`)).body.map((b: any) => b.name)).toContain('propose-e0001')
    expect(await until(host, id, ['idle'])).toBe('idle')
  })

  it('denying discards the branch and writes nothing', async () => {
    const id = await proposed()
    const denied = await call('POST', `/sessions/${id}/pending/e0001-proposal`, { decision: 'deny' })
    expect(denied).toMatchObject({ status: 200, body: { status: 'discarded' } })
    expect((await call('GET', `/sessions/${id}/file?path=/outputs/appendix.md`)).status).toBe(404)
    expect((await call('GET', `/sessions/${id}/branches`)).body).toEqual([])
    expect((await call('POST', `/sessions/${id}/pending/e0001-proposal`, { decision: 'always' })).status).toBe(409)
  })

  it('survives a restart: a new host lists the proposal; a decision stored before a crash is carried out by the next host', async () => {
    const id = await proposed()
    // A message while the proposal waits is queued: the next execution starts from what lands.
    expect((await call('POST', `/sessions/${id}/messages`, { text: 'and an index by location' })).status).toBe(202)
    await host.settled(id)
    expect((await host.get(id)).status).toBe('waiting_approval')
    expect((await host.messages(id)).filter(m => m.state === 'queued')).toHaveLength(1)

    const second = newHost()
    try {
      const [p] = (await second.pending(id)) as any[]
      expect(p.id).toBe('e0001-proposal')
      expect(p.proposal.diff.entries.length).toBeGreaterThan(1)
      // The host fails after storing the decision, at the landing commit itself (nothing of it is written).
      failLanding = true
      await expect(second.answer(id, 'e0001-proposal', { decision: 'approve' })).rejects.toThrow(/died mid-landing/)
      expect(await (await second.workspace(id)).exists('/outputs/appendix.md')).toBe(false)
    } finally {
      await second.stop()
    }
    const third = newHost()
    try {
      // The next host finishes the stored decision from the session's work entry, without another request,
      // once the entry the dead host wrote is a lease period old (until then it is left to its writer).
      let took: string[] = []
      for (let i = 0; i < 200 && !took.includes(id); i++) {
        took = await third.recover()
        if (!took.includes(id)) await new Promise(r => setTimeout(r, 50))
      }
      expect(took).toContain(id)
      await until(third, id, ['idle', 'running', 'waiting_approval'])
      for (let i = 0; i < 500 && (await third.executions(id)).length < 2; i++) await new Promise(r => setTimeout(r, 20))
      await until(third, id, ['idle', 'waiting_approval'])
      const ws = await third.workspace(id)
      expect(await ws.exists('/outputs/appendix.md')).toBe(true)
      const landings = (await third.changes.history(id)).filter(e => e.changes.some(c => (c.actor as any)?.proposal === 'e0001'))
      expect(landings).toHaveLength(1)
      const record = JSON.parse(await ws.readFile('/state/proposals/e0001.json', 'utf8'))
      expect(record.outcome.status).toBe('landed')
      // The queued message became e0002, which started from the landed files.
      expect((await third.executions(id)).map(e => e.id)).toEqual(['e0001', 'e0002'])
    } finally {
      await third.stop()
    }
  })

  it('attempt tools inside a proposal: the attempt lands in the proposal branch, the workspace only on approval', async () => {
    const s = await host.create({ owner: 'ana', profile: 'attempts' })
    await host.send(s.id, { text: 'try it in an attempt' })
    await until(host, s.id, ['waiting_approval'])
    const events = await host.events(s.id)
    const commit = events.find(e => e.type === 'tool-result' && (e as any).toolName === 'attempt_commit') as any
    expect(JSON.stringify(commit)).toContain('"committed":true')
    expect(await (await host.workspace(s.id)).exists('/work/try.md')).toBe(false)
    const [p] = (await host.pending(s.id)) as any[]
    expect(p.proposal.diff.entries.filter((e: any) => e.kind === 'file').map((e: any) => e.path)).toEqual(['/work/try.md'])
    expect(await host.answer(s.id, p.id, { decision: 'approve' })).toMatchObject({ status: 'landed' })
    expect(await (await host.workspace(s.id)).readFile('/work/try.md', 'utf8')).toBe('the attempt\n')
    expect((await host.changes.branches(s.id)).map(b => b.name)).toEqual([])
  })
}
