import { expect, it } from 'vitest'
import { scriptAppendixProfile } from '../../fixtures/script-appendix/profile.js'
import type { VfsStore } from '../../src/contract/store.js'
import { createSessionHost, SessionError, type SessionEvent, type SessionHost } from '../../src/session/index.js'
import { beforeCommits, expectContiguous } from './harness.js'

type FilesChanged = Extract<SessionEvent, { type: 'files-changed' }>
const fileEvents = (events: SessionEvent[]) => events.filter((e): e is FilesChanged => e.type === 'files-changed')

/** Waits (bounded) until the log holds `n` files-changed events (appended just after their commits); resolves to the last seq. */
async function noticed(host: SessionHost, id: string, n: number): Promise<number> {
  for (let i = 0; i < 2000; i++) {
    const events = await host.events(id, { limit: 10_000 })
    if (fileEvents(events).length >= n) return events.at(-1)!.seq
    await new Promise(r => setTimeout(r, 10))
  }
  throw new Error(`the log of ${id} never held ${n} files-changed events`)
}

/** The workspace's files as path → text (`/state` excluded: the runtime's own record). */
async function filesOf(host: SessionHost, id: string): Promise<Record<string, string>> {
  const ws = await host.workspace(id)
  const out: Record<string, string> = {}
  for (const p of (await ws.glob('/**')).sort()) {
    if (p.startsWith('/state/') || (await ws.stat(p)).type !== 'file') continue
    out[p] = await ws.readFile(p, 'utf8')
  }
  return out
}

/**
 * What a fork owes its owner on one store: it outlives the original (deleted: the fork keeps its
 * files, versions and own history, forks of forks too), its bytes count against the owner's quota,
 * and a `files-changed` notice a crash lost between the commit and the append is logged again by
 * the next host that opens the workspace.
 */
export function describeForkLifetimes(getStore: () => Promise<VfsStore>) {
  const agents = { appendix: scriptAppendixProfile() }
  const hostOn = async (namespace: string, options: { store?: VfsStore; quota?: { maxBytes?: number } } = {}) =>
    createSessionHost({ store: options.store ?? (await getStore()), agents, namespace, ...(options.quota ? { quota: options.quota } : {}) })
  const newNamespace = () => `k${Math.random().toString(36).slice(2)}`

  it('a fork outlives the deleted original: files, versions and its own history stay; so does a fork of the fork', async () => {
    const h = await hostOn(newNamespace())
    const s = await h.create({ owner: 'ana', profile: 'appendix' })
    await h.writeFiles(s.id, [
      { path: '/work/a.md', data: 'one\n' },
      { path: '/work/b.md', data: 'bee\n' },
      { path: '/context/c.md', data: 'sea\n' },
    ])
    await h.writeFiles(s.id, [{ path: '/work/a.md', data: 'one\ntwo\n' }])
    const seq = await noticed(h, s.id, 2)
    await h.writeFiles(s.id, [{ path: '/work/a.md', data: 'after the point\n' }])

    const fork = await h.fork(s.id, { seq })
    await h.writeFiles(fork.id, [{ path: '/work/b.md', data: 'bee in the fork\n' }])
    await h.deleteFile(fork.id, '/context/c.md')
    const forkSeq = await noticed(h, fork.id, 4)
    const grandchild = await h.fork(fork.id, { seq: forkSeq })
    const before = { fork: await filesOf(h, fork.id), grandchild: await filesOf(h, grandchild.id) }
    expect(before.fork).toEqual({ '/work/a.md': 'one\ntwo\n', '/work/b.md': 'bee in the fork\n' })
    expect(before.grandchild).toEqual(before.fork)
    const versions = async (id: string) => {
      const ws = await h.workspace(id)
      return Object.fromEntries(await Promise.all(['/work/a.md', '/work/b.md'].map(async p => [p, (await ws.stat(p)).version])))
    }
    const versionsBefore = await versions(fork.id)
    const forkedAt = (await h.events(fork.id)).find(
      (e): e is Extract<SessionEvent, { type: 'session-forked' }> => e.type === 'session-forked',
    )!
    const ownHistory = (await h.changes.history(fork.id, { after: forkedAt.version })).flatMap(e => e.changes.map(c => [c.path, c.op]))
    expect(ownHistory).toContainEqual(['/work/b.md', 'put'])

    await h.delete(s.id)
    await expect(h.get(s.id)).rejects.toThrow(SessionError)
    // The forks read their own copy now (a new host over the same store: the next test).
    expect(await filesOf(h, fork.id)).toEqual(before.fork)
    expect(await filesOf(h, grandchild.id)).toEqual(before.grandchild)
    // The detach reached the fork's clients as one notice by the host: what it copied, at new versions.
    const detachNotice = fileEvents(await h.events(fork.id)).at(-1)!
    expect(detachNotice).toMatchObject({ by: { kind: 'host' } })
    expect(detachNotice.changes.map(c => [c.path, c.op])).toEqual([['/work/a.md', 'changed']])
    // Versions only grow (a client's tree keeps applying changes), and the fork's own changes are still its history.
    const after = await versions(fork.id)
    for (const p of Object.keys(after)) expect(after[p]).toBeGreaterThanOrEqual(versionsBefore[p])
    const history = (await h.changes.history(fork.id, { limit: 1000 })).flatMap(e => e.changes.map(c => [c.path, c.op]))
    for (const change of ownHistory) expect(history).toContainEqual(change)
    // Both still work as sessions: a write, a diff of the fork's own change, and a delete.
    await h.writeFiles(fork.id, [{ path: '/work/a.md', data: 'the fork goes on\n' }])
    expect((await filesOf(h, grandchild.id))['/work/a.md']).toBe('one\ntwo\n')
    const diff = await h.changes.diff(fork.id, { from: { seq: forkSeq } })
    expect(diff.entries.map(e => [e.path, e.status])).toEqual([['/work/a.md', 'changed']])
    await h.delete(fork.id)
    expect(await filesOf(h, grandchild.id)).toEqual(before.grandchild)
    await h.delete(grandchild.id)
    await h.stop()
  })

  it('a new host over the same store reads a fork whose original was deleted', async () => {
    const namespace = newNamespace()
    const store = await getStore()
    const h = await hostOn(namespace, { store })
    const s = await h.create({ owner: 'ana', profile: 'appendix' })
    await h.writeFiles(s.id, [{ path: '/work/a.md', data: 'kept\n' }])
    const fork = await h.fork(s.id, { seq: await noticed(h, s.id, 1) })
    await h.delete(s.id)
    await h.stop()
    const fresh = await hostOn(namespace, { store })
    expect(await filesOf(fresh, fork.id)).toEqual({ '/work/a.md': 'kept\n' })
    await fresh.stop()
  })

  it("a fork's bytes count against the owner's quota: over it the fork is refused and nothing is left", async () => {
    const h = await hostOn(newNamespace(), { quota: { maxBytes: 3000 } })
    const s = await h.create({ owner: 'ana', profile: 'appendix' })
    await h.writeFiles(s.id, [{ path: '/work/big.md', data: 'x'.repeat(1200) }])
    const seq = await noticed(h, s.id, 1)
    const first = await h.fork(s.id, { seq })
    const refused = await h.fork(s.id, { seq }).then(
      () => undefined,
      (e: unknown) => e,
    )
    expect(refused).toBeInstanceOf(SessionError)
    expect((refused as SessionError).code).toBe('quota')
    expect((await h.list('ana')).items.map(r => r.id).sort()).toEqual([s.id, first.id].sort())
    // What the first fork holds is the owner's: an upload that the two sessions' bytes leave no room for is refused too.
    await expect(h.writeFiles(s.id, [{ path: '/work/more.md', data: 'y'.repeat(700) }])).rejects.toThrow(/quota/)
    await h.stop()
  })

  it('a files-changed notice lost between the commit and its append is logged by the next host that opens the workspace', async () => {
    const namespace = newNamespace()
    const store = await getStore()
    // The host "dies" between the two writes: the workspace commit lands, the notice's append to the log fails.
    let dropNotices = false
    const dying = beforeCommits(store, scope => {
      if (dropNotices && scope.startsWith('events/')) throw new Error('killed before the append')
    })
    const h = await hostOn(namespace, { store: dying })
    const s = await h.create({ owner: 'ana', profile: 'appendix' })
    await h.writeFiles(s.id, [{ path: '/work/a.md', data: 'noticed' }])
    await noticed(h, s.id, 1)
    dropNotices = true
    await h.writeFiles(s.id, [
      { path: '/work/a.md', data: 'lost notice' },
      { path: '/work/b.md', data: 'lost too' },
    ])
    await h.deleteFile(s.id, '/work/a.md')
    const versionAfter = (await (await h.workspace(s.id)).stat('/work/b.md')).version
    expect(fileEvents(await h.events(s.id)).map(e => e.version)).toHaveLength(1)
    // The dying host stays dead (its store keeps dropping appends); the next one has the real store.
    await h.stop()

    const next = await hostOn(namespace, { store })
    await next.workspace(s.id)
    const events = await next.events(s.id)
    expectContiguous(events)
    const files = fileEvents(events)
    expect(files.map(e => e.changes.map(c => [c.path, c.op]))).toEqual([
      [['/work/a.md', 'added']],
      [
        ['/work/a.md', 'changed'],
        ['/work/b.md', 'added'],
      ],
      [['/work/a.md', 'deleted']],
    ])
    expect(files[1]).toMatchObject({ version: versionAfter, by: { kind: 'api' } })
    // Logged once: a third host finds nothing missing.
    const third = await hostOn(namespace, { store })
    await third.workspace(s.id)
    expect(fileEvents(await third.events(s.id))).toHaveLength(3)
    await Promise.all([next.stop(), third.stop()])
  })
}
