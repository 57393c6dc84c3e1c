import { afterAll, beforeAll, expect, it } from 'vitest'
import { scriptAppendixProfile } from '../../fixtures/script-appendix/profile.js'
import { APPENDIX_INSTRUCTIONS } from '../../fixtures/script-appendix/task.js'
import type { VfsStore } from '../../src/contract/store.js'
import { createSessionApp, createSessionHost, mintToken, type SessionHost } from '../../src/session/index.js'
import { season } from './harness.js'
import { listen } from './http-client.js'
import { uploadForm } from './route-requests.js'
import { putJson } from '../../src/session/records/records.js'
import { FORK_PATH, newSessionId, scopeNames, SESSION_PATH } from '../../src/session/storage.js'

const secret = 'test-secret-test-secret-test-secret-0123'

/** The history routes over HTTP on one store: history, diff, revert (and its conflicts), fork, branches. */
export function describeChangesHttp(getStore: () => Promise<VfsStore>) {
  let host: SessionHost
  let store: VfsStore
  let namespace: string
  let server: Awaited<ReturnType<typeof listen>>
  let ana: string
  let bob: string
  beforeAll(async () => {
    store = await getStore()
    namespace = `c${Math.random().toString(36).slice(2)}`
    host = createSessionHost({
      store,
      agents: { appendix: scriptAppendixProfile() },
      namespace,
      pollMs: 20,
      quota: { maxSessions: 50 },
    })
    server = await listen(createSessionApp(host, { auth: { secret } }).fetch)
    ana = await mintToken(secret, 'ana')
    bob = await mintToken(secret, 'bob')
  })
  afterAll(async () => {
    await host?.stop()
    await server?.close()
  })

  const call = async (method: string, path: string, token: string, body?: unknown) => {
    const raw = body instanceof FormData || typeof body === 'string'
    const json = body !== undefined && (!raw || (typeof body === 'string' && body.startsWith('{')))
    const res = await fetch(server.url + path, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(json ? { 'content-type': 'application/json' } : {}) },
      ...(body !== undefined ? { body: raw ? (body as BodyInit) : JSON.stringify(body) } : {}),
    })
    const text = await res.text()
    const parsed = res.headers.get('content-type')?.includes('json') ? JSON.parse(text) : undefined
    return { status: res.status, body: parsed, text }
  }
  /** A session of Ana's that ran the appendix once. */
  const ranAppendix = async () => {
    const s = (await call('POST', '/sessions', ana, { profile: 'appendix', title: 'changes' })).body
    expect((await call('POST', `/sessions/${s.id}/files`, ana, uploadForm(season()))).status).toBe(201)
    expect((await call('POST', `/sessions/${s.id}/messages`, ana, { text: APPENDIX_INSTRUCTIONS })).status).toBe(202)
    for (let i = 0; i < 3000; i++) {
      await host.settled(s.id)
      if ((await call('GET', `/sessions/${s.id}`, ana)).body.status === 'idle' && (await host.executions(s.id))[0]?.status === 'completed')
        break
      await new Promise(r => setTimeout(r, 20))
    }
    return s.id as string
  }

  it("history and diff of an execution: what it added, by whom, with text patches; another owner's is 404", async () => {
    const id = await ranAppendix()
    const history = (await call('GET', `/sessions/${id}/history?execution=e0001`, ana)).body
    const paths = history.entries.flatMap((e: any) => e.changes.map((c: any) => c.path))
    expect(paths).toContain('/outputs/assets.json')
    for (const e of history.entries) for (const c of e.changes) expect(c.actor).toEqual({ kind: 'execution', executionId: 'e0001' })
    const ofPath = (await call('GET', `/sessions/${id}/history?path=/context/`, ana)).body
    expect(ofPath.entries.flatMap((e: any) => e.changes.map((c: any) => c.actor))).toEqual(expect.arrayContaining([{ kind: 'api' }]))

    const diff = (await call('GET', `/sessions/${id}/diff?execution=e0001`, ana)).body
    const assets = diff.entries.find((e: any) => e.path === '/outputs/assets.json')
    expect(assets).toMatchObject({ status: 'added', binary: false })
    expect(assets.patch).toContain('+')
    expect(diff.entries.some((e: any) => e.path.startsWith('/context/'))).toBe(false)
    // The same diff by explicit points, and from an event sequence.
    const same = (await call('GET', `/sessions/${id}/diff?from=e0001:start&to=e0001:end&patches=0`, ana)).body
    expect(same.entries.map((e: any) => e.path)).toEqual(diff.entries.map((e: any) => e.path))
    expect(same.entries.every((e: any) => e.patch === undefined)).toBe(true)
    const fromStart = (await call('GET', `/sessions/${id}/diff?from=seq:1`, ana)).body
    expect(fromStart.entries.map((e: any) => e.path)).toEqual(
      expect.arrayContaining(['/outputs/assets.json', '/context/episodes/episode-01.fountain']),
    )

    for (const path of [`/sessions/${id}/history`, `/sessions/${id}/diff?execution=e0001`, `/sessions/${id}/branches`])
      expect((await call('GET', path, bob)).status).toBe(404)
    expect((await call('POST', `/sessions/${id}/executions/e0001/revert`, bob)).status).toBe(404)
    expect((await call('POST', `/sessions/${id}/fork`, bob, { at: { seq: 1 } })).status).toBe(404)
  })

  it('hostile points and fork bodies are 400s; a point beyond the log is 404', async () => {
    const id = (await call('POST', '/sessions', ana, { profile: 'appendix' })).body.id
    for (const q of [
      'from=-1',
      'from=seq:x',
      'from=e1:start',
      'to=e0001:middle',
      `from=${'9'.repeat(80)}`,
      'from=seq:1;drop',
      'patches=maybe',
    ])
      expect([q, (await call('GET', `/sessions/${id}/diff?${q}`, ana)).status]).toEqual([q, 400])
    expect((await call('GET', `/sessions/${id}/diff?from=seq:99999`, ana)).status).toBe(404)
    expect((await call('GET', `/sessions/${id}/history?limit=100000`, ana)).status).toBe(400)
    for (const body of [
      {},
      { at: { seq: -1 } },
      { at: { seq: 1 }, owner: 'bob' },
      { at: { seq: 1, checkpoint: {} } },
      { at: 'seq:1' },
      '{"at":',
    ])
      expect([body, (await call('POST', `/sessions/${id}/fork`, ana, body)).status]).toEqual([body, 400])
    // (`..` is resolved by the URL itself: /branches/../diff is the session's /diff.)
    for (const name of ['a/b', 'x'.repeat(65), 'a b', '%00'])
      expect([name, (await call('GET', `/sessions/${id}/branches/${encodeURIComponent(name)}/diff`, ana)).status]).toEqual([name, 400])
    expect((await call('POST', `/sessions/${id}/branches/nope/commit`, ana)).status).toBe(404)
  })

  it('revert after a later edit conflicts (409, nothing written); without one it undoes the execution outside /state', async () => {
    const id = await ranAppendix()
    const before = (await call('GET', `/sessions/${id}/file?path=/outputs/appendix.md`, ana)).text
    expect((await call('PUT', `/sessions/${id}/file?path=/outputs/appendix.md`, ana, 'edited by a person')).status).toBe(201)
    const refused = await call('POST', `/sessions/${id}/executions/e0001/revert`, ana)
    expect(refused.status).toBe(409)
    expect(refused.body.conflicts.map((c: any) => c.path)).toEqual(['/outputs/appendix.md'])
    expect((await call('GET', `/sessions/${id}/file?path=/outputs/assets.json`, ana)).status).toBe(200)
    expect((await call('GET', `/sessions/${id}/file?path=/outputs/appendix.md`, ana)).text).toBe('edited by a person')
    expect(before).not.toBe('edited by a person')

    const clean = await ranAppendix()
    const undone = await call('POST', `/sessions/${clean}/executions/e0001/revert`, ana)
    expect(undone.status).toBe(200)
    expect(undone.body.changes.length).toBeGreaterThan(0)
    expect((await call('GET', `/sessions/${clean}/file?path=/outputs/assets.json`, ana)).status).toBe(404)
    expect((await call('GET', `/sessions/${clean}/file?path=/state/executions/e0001/execution.json`, ana)).status).toBe(200)
    expect((await call('GET', `/sessions/${clean}/file?path=/context/episodes/episode-01.fountain`, ana)).status).toBe(200)
    // The revert is the API's, and its commit reached the log as a files-changed event.
    const events = (await call('GET', `/sessions/${clean}/events?limit=1000`, ana)).body.events
    const last = events.filter((e: any) => e.type === 'files-changed').at(-1)
    expect(last.by).toEqual({ kind: 'api' })
    expect(last.changes.some((c: any) => c.path === '/outputs/assets.json' && c.op === 'deleted')).toBe(true)
  })

  it('fork at a checkpoint: a new session of the same owner with the workspace and the events as they were', async () => {
    const id = await ranAppendix()
    const events = (await call('GET', `/sessions/${id}/events?limit=1000`, ana)).body.events
    const checkpoint = events.find((e: any) => e.type === 'checkpoint' && e.revision >= 2)
    const forked = await call('POST', `/sessions/${id}/fork`, ana, {
      at: { checkpoint: { execution: 'e0001', revision: checkpoint.revision } },
    })
    expect(forked.status).toBe(201)
    const fork = forked.body
    expect(fork).toMatchObject({ owner: 'ana', profile: 'appendix', status: 'idle' })
    expect(fork.id).not.toBe(id)
    const forkEvents = (await call('GET', `/sessions/${fork.id}/events?limit=1000`, ana)).body.events
    expect(forkEvents.at(-1)).toMatchObject({ type: 'session-forked', from: id, fromSeq: checkpoint.seq })
    expect(forkEvents.slice(0, -1).map((e: any) => [e.seq, e.type])).toEqual(
      events.filter((e: any) => e.seq <= checkpoint.seq).map((e: any) => [e.seq, e.type]),
    )
    // Its workspace is the original's at the checkpoint's version: the files and their content.
    const version = forkEvents.at(-1).version
    const original = await host.changes.diff(id, { from: { version }, patches: false })
    expect(original.entries.length).toBeGreaterThan(0)
    const files = (await call('GET', `/sessions/${fork.id}/files`, ana)).body.map((f: any) => f.path)
    const then = (await host.changes.diff(id, { to: { version }, patches: false })).entries
      .filter((e: any) => e.status !== 'deleted' && e.kind === 'file')
      .map((e: any) => e.path)
    expect(files.sort()).toEqual(then.sort())
    expect(files).not.toContain('/outputs/appendix.md')
    // The unfinished execution is interrupted in the fork; the original is untouched.
    expect((await host.executions(fork.id)).map(e => e.status)).toEqual(['interrupted'])
    expect((await host.executions(id)).map(e => e.status)).toEqual(['completed'])
    // The fork writes on its own; the original does not see it.
    expect((await call('PUT', `/sessions/${fork.id}/file?path=/work/only-in-fork.md`, ana, 'x')).status).toBe(201)
    expect((await call('GET', `/sessions/${id}/file?path=/work/only-in-fork.md`, ana)).status).toBe(404)
    expect((await call('GET', `/sessions/${fork.id}/file?path=/context/episodes/episode-01.fountain`, ana)).status).toBe(200)
  })

  it('a fork whose host died after its first commit is finished by the next read', async () => {
    const id = await ranAppendix()
    const events = (await call('GET', `/sessions/${id}/events?limit=1000`, ana)).body.events
    const at = events.find((e: any) => e.type === 'checkpoint').seq
    // What forkSession commits first, and nothing after it: no branch, no events.
    const forkId = newSessionId()
    const now = Date.now()
    const record = {
      id: forkId,
      owner: 'ana',
      profile: 'appendix',
      title: 'half',
      status: 'idle',
      createdAt: now,
      updatedAt: now,
      executions: 0,
    }
    await store.commit(namespace, scopeNames.meta(forkId), [
      putJson(SESSION_PATH, record, 0),
      putJson(FORK_PATH, { from: id, branch: `fork-${forkId}`, version: 5, seq: at }, 0),
    ])
    expect((await call('GET', `/sessions/${forkId}`, ana)).status).toBe(200)
    const got = (await call('GET', `/sessions/${forkId}/events?limit=1000`, ana)).body.events
    expect(got.map((e: any) => e.type)).toEqual([...events.filter((e: any) => e.seq <= at).map((e: any) => e.type), 'session-forked'])
    expect((await call('GET', `/sessions/${forkId}/file?path=/context/episodes/episode-01.fountain`, ana)).status).toBe(200)
    // Finished once: another read adds nothing.
    expect((await call('GET', `/sessions/${forkId}`, bob)).status).toBe(404)
    expect((await call('GET', `/sessions/${forkId}/events?limit=1000`, ana)).body.events).toHaveLength(got.length)
  })

  it('branches of a session: list, diff, commit (one commit, conflicts listed), discard', async () => {
    const id = (await call('POST', '/sessions', ana, { profile: 'appendix' })).body.id
    expect((await call('PUT', `/sessions/${id}/file?path=/work/a.md`, ana, 'one\n')).status).toBe(201)
    const b = await host.changes.branch(id, 'attempt-1')
    await b.writeFile('/work/a.md', 'one\ntwo\n')
    await b.writeFile('/work/b.md', 'new\n')
    await b.flush()
    expect((await call('GET', `/sessions/${id}/branches`, ana)).body.map((x: any) => x.name)).toContain('attempt-1')
    const diff = (await call('GET', `/sessions/${id}/branches/attempt-1/diff`, ana)).body
    expect(diff.entries.map((e: any) => [e.path, e.status])).toEqual([
      ['/work/a.md', 'changed'],
      ['/work/b.md', 'added'],
    ])
    expect(diff.entries[0].patch).toContain('+two')
    const landed = await call('POST', `/sessions/${id}/branches/attempt-1/commit`, ana)
    expect(landed.status).toBe(200)
    expect((await call('GET', `/sessions/${id}/file?path=/work/a.md`, ana)).text).toBe('one\ntwo\n')

    const c = await host.changes.branch(id, 'attempt-2')
    await c.writeFile('/work/a.md', 'branch\n')
    await c.flush()
    expect((await call('PUT', `/sessions/${id}/file?path=/work/a.md`, ana, 'base moved\n')).status).toBe(201)
    const refused = await call('POST', `/sessions/${id}/branches/attempt-2/commit`, ana)
    expect(refused.status).toBe(409)
    expect(refused.body.conflicts.map((x: any) => x.path)).toEqual(['/work/a.md'])
    expect((await call('GET', `/sessions/${id}/file?path=/work/a.md`, ana)).text).toBe('base moved\n')
    expect((await call('DELETE', `/sessions/${id}/branches/attempt-2`, ana)).status).toBe(200)
    expect((await call('GET', `/sessions/${id}/branches`, ana)).body.map((x: any) => x.name)).not.toContain('attempt-2')
  })
}
