import { expect, it } from 'vitest'
import { scriptAppendixProfile } from '../../fixtures/script-appendix/profile.js'
import { APPENDIX_INSTRUCTIONS } from '../../fixtures/script-appendix/task.js'
import type { VfsStore } from '../../src/contract/store.js'
import type { RunVfs } from '../../src/index.js'
import { createSessionHost, type ChangedFile, type SessionEvent, type SessionHost } from '../../src/session/index.js'
import { expectContiguous, until, uploadSeason } from './harness.js'

type FilesChanged = Extract<SessionEvent, { type: 'files-changed' }>
const fileEvents = (events: SessionEvent[]) => events.filter((e): e is FilesChanged => e.type === 'files-changed')

/** Waits until the log holds a files-changed event that `match` accepts. */
async function fileEvent(host: SessionHost, id: string, match: (c: ChangedFile, e: FilesChanged) => boolean): Promise<FilesChanged> {
  for (let i = 0; i < 2000; i++) {
    const hit = fileEvents(await host.events(id, { limit: 10_000 })).find(e => e.changes.some(c => match(c, e)))
    if (hit) return hit
    await new Promise(r => setTimeout(r, 10))
  }
  throw new Error('no such files-changed event')
}

/** Live file changes on one store: every committed change becomes an event of the session's log, attributed. */
export function describeFileEvents(getStore: () => Promise<VfsStore>) {
  const namespace = `f${Math.random().toString(36).slice(2)}`
  const agents = {
    appendix: scriptAppendixProfile(),
    seeded: { ...scriptAppendixProfile(), seed: async (ws: RunVfs) => ws.seed('/skills/x.md', '# x') },
  }
  const hosts: SessionHost[] = []
  const open = async () => {
    const h = createSessionHost({ store: await getStore(), agents, namespace, pollMs: 50 })
    hosts.push(h)
    return h
  }

  it('logs uploads, rewrites and deletes as files-changed events by the API, in commit order', async () => {
    const h = await open()
    const s = await h.create({ owner: 'ana', profile: 'appendix' })
    await h.writeFiles(s.id, [
      { path: '/context/a.md', data: 'one' },
      { path: '/context/b.json', data: '{}' },
    ])
    await h.writeFiles(s.id, [{ path: '/context/a.md', data: 'one two' }])
    await h.deleteFile(s.id, '/context/b.json')
    const last = await fileEvent(h, s.id, c => c.op === 'deleted')
    const events = await h.events(s.id)
    expectContiguous(events)
    const files = fileEvents(events)
    expect(files.map(e => e.by)).toEqual([{ kind: 'api' }, { kind: 'api' }, { kind: 'api' }])
    expect(
      files[0].changes.map(({ path, op, size, mimeType }) => ({ path, op, size, mimeType })).sort((a, b) => (a.path < b.path ? -1 : 1)),
    ).toEqual([
      { path: '/context/a.md', op: 'added', size: 3, mimeType: 'text/markdown' },
      { path: '/context/b.json', op: 'added', size: 2, mimeType: 'application/json' },
    ])
    expect(files[1].changes).toEqual([
      { path: '/context/a.md', op: 'changed', version: files[1].version, size: 7, mimeType: 'text/markdown' },
    ])
    expect(last.changes).toEqual([{ path: '/context/b.json', op: 'deleted', version: last.version, size: 0, mimeType: 'application/json' }])
    // The version is the one the workspace reports for the file after the change.
    const ws = await h.workspace(s.id)
    expect((await ws.stat('/context/a.md')).version).toBe(files[1].version)
    expect(files[0].version).toBeLessThan(files[1].version)
    expect(files[1].version).toBeLessThan(last.version)
    // A reconnect from after= gets exactly the events after it.
    const after = files[0].seq
    expect(fileEvents(await h.events(s.id, { after })).map(e => e.seq)).toEqual([files[1].seq, last.seq])
  })

  it("attributes an execution's writes to it, and replaying the events gives the workspace's file list", async () => {
    const h = await open()
    const s = await h.create({ owner: 'ana', profile: 'appendix' })
    await uploadSeason(h, s.id)
    await h.send(s.id, { text: APPENDIX_INSTRUCTIONS })
    await until(h, s.id, ['idle'])
    const ws = await h.workspace(s.id)
    const actual = new Map<string, number>()
    for (const p of await ws.glob('/**')) actual.set(p, (await ws.stat(p)).size)
    // The file tree a client keeps from the events alone becomes the workspace's (the last events
    // may land just after the status: a notice follows its commit).
    let files: FilesChanged[] = []
    let tree = new Map<string, number>()
    for (let i = 0; i < 500; i++) {
      files = fileEvents(await h.events(s.id, { limit: 10_000 }))
      tree = new Map()
      for (const e of files) for (const c of e.changes) c.op === 'deleted' ? tree.delete(c.path) : tree.set(c.path, c.size)
      if (tree.size === actual.size) break
      await new Promise(r => setTimeout(r, 20))
    }
    const outputs = files.filter(e => e.changes.some(c => c.path.startsWith('/outputs/')))
    expect(outputs.length).toBeGreaterThan(0)
    for (const e of outputs) expect(e.by).toEqual({ kind: 'execution', executionId: 'e0001' })
    expect(
      files
        .filter(e => e.by.kind === 'api')
        .flatMap(e => e.changes.map(c => c.path))
        .every(p => p.startsWith('/context/')),
    ).toBe(true)
    expect(new Map([...tree].sort())).toEqual(new Map([...actual].sort()))
  })

  it('does not log the seed of a new session: its first event is session-created', async () => {
    const h = await open()
    const s = await h.create({ owner: 'ana', profile: 'seeded' })
    await h.writeFiles(s.id, [{ path: '/work/n.txt', data: 'n' }])
    await fileEvent(h, s.id, c => c.path === '/work/n.txt')
    const events = await h.events(s.id)
    expect(events[0].type).toBe('session-created')
    expect(fileEvents(events).flatMap(e => e.changes.map(c => c.path))).toEqual(['/work/n.txt'])
  })

  it("logs another host's writes once, by the host that committed them", async () => {
    const a = await open()
    const b = await open()
    const s = await a.create({ owner: 'ana', profile: 'appendix' })
    await (await a.workspace(s.id)).exists('/context')
    await b.writeFiles(s.id, [{ path: '/context/from-b.md', data: 'b' }])
    await a.writeFiles(s.id, [{ path: '/context/from-a.md', data: 'a' }])
    await fileEvent(a, s.id, c => c.path === '/context/from-a.md')
    await fileEvent(a, s.id, c => c.path === '/context/from-b.md')
    await new Promise(r => setTimeout(r, 200))
    const paths = fileEvents(await a.events(s.id)).flatMap(e => e.changes.map(c => c.path))
    expect(paths.sort()).toEqual(['/context/from-a.md', '/context/from-b.md'])
    for (const h of hosts) await h.stop()
  })
}
