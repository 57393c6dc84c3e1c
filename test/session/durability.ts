import { expect, it } from 'vitest'
import { scriptAppendixProfile } from '../../fixtures/script-appendix/profile.js'
import { APPENDIX_INSTRUCTIONS } from '../../fixtures/script-appendix/task.js'
import type { VfsStore } from '../../src/contract/store.js'
import { EventLog } from '../../src/session/records/event-log.js'
import { createSessionHost, SEGMENT_EVENTS, storedBytes, type AgentProfile, type SessionEvent } from '../../src/session/index.js'
import { completions, expectContiguous, gatedAppendix, until, uploadSeason } from './harness.js'

const appendix = scriptAppendixProfile()

/** A profile whose model never answers after `calls` model calls: a host that hangs (then is stopped) mid-execution. */
function hangingAfter(calls: number): AgentProfile {
  return {
    async setup(e) {
      const s = await appendix.setup(e)
      let n = 0
      return { ...s, model: { ...s.model, doGenerate: o => (++n > calls ? new Promise(() => {}) : s.model.doGenerate(o)) } }
    },
  }
}

const ns = () => `d${Math.random().toString(36).slice(2)}`

/** Event log, recovery, cross-host abort and observers, gc and quotas on one store. */
export function describeDurability(getStore: () => Promise<VfsStore>) {
  it('keeps one sequence when two writers append to one session at once, across segments', async () => {
    const store = await getStore()
    const namespace = ns()
    const host = createSessionHost({ store, agents: { appendix }, namespace })
    const s = await host.create({ owner: 'o', profile: 'appendix' })
    const a = new EventLog(store, namespace, s.id, () => {})
    const b = new EventLog(store, namespace, s.id, () => {})
    const n = SEGMENT_EVENTS + 150
    const appended = await Promise.all(
      Array.from({ length: n }, (_, i) => (i % 2 ? a : b).append({ type: 'status', status: i % 3 ? 'idle' : 'running' })),
    )
    const all = await host.events(s.id, { after: 0, limit: 1000 })
    const rest = await host.events(s.id, { after: all[all.length - 1].seq })
    const events = [...all, ...rest]
    expect(events).toHaveLength(n + 1) // + session-created
    expectContiguous(events)
    expect(new Set(appended.map(e => e.seq)).size).toBe(n)
    // Reads from the middle of a later segment.
    const mid = await host.events(s.id, { after: SEGMENT_EVENTS + 10, limit: 5 })
    expect(mid.map(e => e.seq)).toEqual([511, 512, 513, 514, 515].map(x => x - 500 + SEGMENT_EVENTS))
  })

  it('eventLines gives the same events as their stored JSON text, also for lines stored in another key order', async () => {
    const store = await getStore()
    const namespace = ns()
    const host = createSessionHost({ store, agents: { appendix }, namespace })
    const s = await host.create({ owner: 'o', profile: 'appendix' })
    const log = new EventLog(store, namespace, s.id, () => {})
    await Promise.all(
      Array.from({ length: SEGMENT_EVENTS + 20 }, (_, i) =>
        log.append({ type: 'message', n: i, text: `m${i}\n"quoted"`, mode: 'follow-up' }),
      ),
    )
    // A batch written with `type` not first (as older hosts wrote lines) still reads with its type.
    const seq = SEGMENT_EVENTS + 22
    const odd = [
      { seq, at: 1, status: 'idle', type: 'status' },
      { seq: seq + 1, at: 1, type: 'status', status: 'running' },
    ]
    const data = new TextEncoder().encode(odd.map(e => JSON.stringify(e) + '\n').join(''))
    await store.commit(namespace, `events/${s.id}/1`, [
      { op: 'put', path: `/${String(seq).padStart(12, '0')}.jsonl`, kind: 'file', data, mtime: 1, ctime: 1, expectedVersion: 0 },
    ])
    for (const [after, limit] of [
      [0, 1000],
      [SEGMENT_EVENTS - 3, 10],
      [SEGMENT_EVENTS + 15, 1000],
      [seq + 1, 5],
    ]) {
      const events = await host.events(s.id, { after, limit })
      const lines = await host.eventLines(s.id, { after, limit })
      expect(lines.map(l => JSON.parse(l.json))).toEqual(events)
      expect(lines.map(l => [l.seq, l.type])).toEqual(events.map(e => [e.seq, e.type]))
      expect(events[0]?.seq ?? after + 1).toBe(after + 1)
    }
    expectContiguous(await host.events(s.id, { after: 0 }))
    expect((await host.eventLines(s.id, { after: seq - 1 })).map(l => [l.seq, l.type])).toEqual([
      [seq, 'status'],
      [seq + 1, 'status'],
    ])
    // eventLines pages go up to 10,000 events; events pages stop at 1,000.
    await Promise.all(Array.from({ length: 600 }, () => log.append({ type: 'status', status: 'idle' })))
    const all = await host.eventLines(s.id, { limit: 5000 })
    expect(all.map(l => l.seq)).toEqual(Array.from({ length: seq + 601 }, (_, i) => i + 1))
    expect(await host.events(s.id, { limit: 5000 })).toHaveLength(1000)
    await expect(host.eventLines('s' + '0'.repeat(32))).rejects.toMatchObject({ code: 'not-found' })
    await expect(host.eventLines('../x')).rejects.toMatchObject({ code: 'not-found' })
  })

  it('observe yields exactly the events after `after`, stored then live, while another host appends', async () => {
    const store = await getStore()
    const namespace = ns()
    const writer = createSessionHost({ store, agents: { appendix }, namespace, pollMs: 20 })
    const reader = createSessionHost({ store, agents: { appendix }, namespace, pollMs: 20 })
    const s = await writer.create({ owner: 'o', profile: 'appendix' })
    await uploadSeason(writer, s.id)
    await writer.send(s.id, { text: APPENDIX_INSTRUCTIONS })
    const got: SessionEvent[] = []
    // Start observing from the middle while the writer host runs the execution.
    for await (const e of reader.observe(s.id, { after: 3, heartbeatMs: 0 })) {
      if (e.type === 'heartbeat') continue
      got.push(e)
      if (e.type === 'execution-end') break
    }
    await until(writer, s.id, ['idle'])
    const stored = await writer.events(s.id, { after: 3 })
    expect(got.map(e => e.seq)).toEqual(stored.slice(0, got.length).map(e => e.seq))
    expect(got[0].seq).toBe(4)
  })

  it('an abort sent to one host stops the execution running on another', async () => {
    const store = await getStore()
    const namespace = ns()
    const gated = gatedAppendix(4)
    const runner = createSessionHost({ store, agents: { appendix: gated.profile }, namespace, pollMs: 20, leaseMs: 600 })
    const other = createSessionHost({ store, agents: { appendix }, namespace, pollMs: 20 })
    const s = await runner.create({ owner: 'o', profile: 'appendix' })
    await uploadSeason(runner, s.id)
    await runner.send(s.id, { text: APPENDIX_INSTRUCTIONS })
    await gated.reached
    await other.abort(s.id)
    gated.open() // the blocked call returns; the next model or tool call sees the abort
    await until(runner, s.id, ['idle'])
    expect((await other.executions(s.id))[0].status).toBe('interrupted')
  })

  /** One host runs a session, another deletes it mid-run (through `deleting`); nothing is left once the run stops. */
  async function deleteWhileRunning(leaseMs: number, deleting: (store: VfsStore) => VfsStore): Promise<void> {
    const store = await getStore()
    const namespace = ns()
    const gated = gatedAppendix(3)
    const runner = createSessionHost({ store, agents: { appendix: gated.profile }, namespace, leaseMs })
    const other = createSessionHost({ store: deleting(store), agents: { appendix }, namespace })
    const s = await runner.create({ owner: 'o', profile: 'appendix' })
    await uploadSeason(runner, s.id)
    await runner.send(s.id, { text: APPENDIX_INSTRUCTIONS })
    await gated.reached
    await other.delete(s.id)
    gated.open()
    await runner.settled(s.id)
    expect((await store.listScopes(namespace)).filter(x => x.includes(s.id))).toEqual([])
  }

  it('a session deleted by one host while another runs it leaves nothing behind once the run stops', async () => {
    await deleteWhileRunning(600, store => store)
  })

  it('a run that stops between a delete removing the events and removing the meta scope still leaves nothing behind', async () => {
    // The deleting host's store pauses after each removal of an event segment: the runner's abort
    // (its lease renewal sees the close) and its last appends land while the delete is still running.
    await deleteWhileRunning(300, store => {
      const slow = Object.create(store) as VfsStore
      slow.deleteScope = async (n, scope) => {
        await store.deleteScope(n, scope)
        if (scope.startsWith('events/')) await new Promise(r => setTimeout(r, 600))
      }
      return slow
    })
  })

  it('recovers an execution whose host died: exactly one host resumes it, no completed step redone', async () => {
    const store = await getStore()
    const namespace = ns()
    const dying = createSessionHost({ store, agents: { appendix: hangingAfter(4) }, namespace, leaseMs: 300 })
    const s = await dying.create({ owner: 'o', profile: 'appendix' })
    await uploadSeason(dying, s.id)
    await dying.send(s.id, { text: APPENDIX_INSTRUCTIONS })
    // Wait for the hang: a checkpoint is stored, then the model never answers.
    for await (const e of dying.observe(s.id, { heartbeatMs: 0, pollMs: 20 })) if (e.type === 'checkpoint' && e.revision >= 2) break
    await new Promise(r => setTimeout(r, 100))
    await dying.stop() // no more lease renewals: as if the process died
    const stoppedAt = performance.now()
    const b = createSessionHost({ store, agents: { appendix }, namespace, leaseMs: 300 })
    const c = createSessionHost({ store, agents: { appendix }, namespace, leaseMs: 300 })
    const early = await b.recover()
    // The last renewal was at most leaseMs / 3 before the stop, so a lease read within the next
    // 2/3 of it is live and must not be taken; a busy machine can be slower than that, and then
    // taking it is right (the checks below still say one host resumed it, once).
    if (performance.now() - stoppedAt < 200) expect(early).toEqual([])
    await new Promise(r => setTimeout(r, 400))
    const [tookB, tookC] = await Promise.all([b.recover(), c.recover()])
    tookB.push(...early)
    await Promise.all([b.settled(s.id), c.settled(s.id)])
    await until(b, s.id, ['idle'])
    const events = await b.events(s.id)
    expectContiguous(events)
    const starts = events.filter(e => e.type === 'execution-start')
    expect(starts.map(e => (e as any).resumed)).toEqual([false, true]) // resumed once, by one host
    expect(tookB.length + tookC.length).toBeGreaterThanOrEqual(1)
    const done = completions(events)
    expect(new Set(done).size).toBe(done.length)
    expect((await b.executions(s.id))[0].status).toBe('completed')
  })

  it('gc removes closed sessions past their time, old event segments and old run_js archives, nothing else', async () => {
    const store = await getStore()
    const namespace = ns()
    const host = createSessionHost({ store, agents: { appendix }, namespace })
    const keep = await host.create({ owner: 'o', profile: 'appendix' })
    const doomed = await host.create({ owner: 'o', profile: 'appendix' })
    await host.close(doomed.id)
    const log = new EventLog(store, namespace, keep.id, () => {})
    await Promise.all(Array.from({ length: 2 * SEGMENT_EVENTS + 100 }, () => log.append({ type: 'status', status: 'idle' })))
    await uploadSeason(host, keep.id)
    await host.send(keep.id, { text: APPENDIX_INSTRUCTIONS })
    await until(host, keep.id, ['idle'])
    const archivesBefore = (await (await host.workspace(keep.id)).readdir('/work/.run_js')).length
    const report = await host.gc({ closedOlderThan: 0, keepEvents: 50, keepRunArchives: 1 })
    expect(report.sessionsDeleted).toEqual([doomed.id])
    expect(report.segmentsDeleted).toBe(2)
    expect(report.archivesDeleted).toBeGreaterThan(0)
    const archivesAfter = await (await host.workspace(keep.id)).readdir('/work/.run_js')
    expect(archivesAfter.length).toBeLessThan(archivesBefore)
    expect(archivesAfter.every(f => /-(\d+)\./.exec(f)![1] === /-(\d+)\./.exec(archivesAfter[0])![1])).toBe(true)
    const events = await host.events(keep.id, { after: 0 })
    expect(events[0].seq).toBe(2 * SEGMENT_EVENTS + 1)
    expect((await host.executions(keep.id))[0].status).toBe('completed')
    await expect(host.get(doomed.id)).rejects.toMatchObject({ code: 'not-found' })
    expect((await store.listScopes(namespace)).filter(x => x.includes(doomed.id))).toEqual([])
  })

  it('enforces per-owner quotas: sessions and bytes; a refused upload writes nothing', async () => {
    const store = await getStore()
    const host = createSessionHost({ store, agents: { appendix }, namespace: ns(), quota: { maxSessions: 2, maxBytes: 2000 } })
    const a = await host.create({ owner: 'q', profile: 'appendix' })
    const b = await host.create({ owner: 'q', profile: 'appendix' })
    await expect(host.create({ owner: 'q', profile: 'appendix' })).rejects.toMatchObject({ code: 'quota' })
    await host.create({ owner: 'other', profile: 'appendix' })
    // The quota counts files and their history (each change's row, each replaced content).
    await host.writeFiles(a.id, [{ path: '/work/a.txt', data: 'x'.repeat(1000) }])
    await expect(
      host.writeFiles(b.id, [
        { path: '/work/b.txt', data: 'y'.repeat(400) },
        { path: '/work/c.txt', data: 'z'.repeat(600) },
      ]),
    ).rejects.toMatchObject({ code: 'quota' })
    expect(await (await host.workspace(b.id)).exists('/work/b.txt')).toBe(false)
    await host.writeFiles(b.id, [{ path: '/work/b.txt', data: 'y'.repeat(400) }])
    await host.delete(a.id)
    // What an execution writes counts too: a run that fills the workspace leaves no room for uploads.
    const big = createSessionHost({ store, agents: { appendix }, namespace: ns(), quota: { maxBytes: 400_000 } })
    const c = await big.create({ owner: 'q', profile: 'appendix' })
    await uploadSeason(big, c.id)
    const uploaded = (await big.workspace(c.id)).usage().bytes
    await big.send(c.id, { text: APPENDIX_INSTRUCTIONS })
    await until(big, c.id, ['idle'])
    expect((await big.workspace(c.id)).usage().bytes).toBeGreaterThan(uploaded)
    const used = storedBytes((await big.workspace(c.id)).usage())
    const d = await big.create({ owner: 'q', profile: 'appendix' })
    await expect(big.writeFiles(d.id, [{ path: '/work/x.bin', data: new Uint8Array(400_000 - used + 1) }])).rejects.toMatchObject({
      code: 'quota',
    })
    // Less the history rows of the new file and its folder.
    await big.writeFiles(d.id, [{ path: '/work/x.bin', data: new Uint8Array(400_000 - used - 400) }])
    await host.create({ owner: 'q', profile: 'appendix' })
  })

  it('takes 60 concurrent creates by one owner (one counter) without giving up', async () => {
    const host = createSessionHost({ store: await getStore(), agents: { appendix }, namespace: ns(), quota: { maxSessions: 60 } })
    const made = await Promise.all(
      Array.from({ length: 60 }, (_, i) => host.create({ owner: 'busy', profile: 'appendix', title: String(i) })),
    )
    expect(new Set(made.map(s => s.id)).size).toBe(60)
    const listed = [...(await host.list('busy', { limit: 100 })).items]
    expect(listed).toHaveLength(60)
    await expect(host.create({ owner: 'busy', profile: 'appendix' })).rejects.toMatchObject({ code: 'quota' })
  })

  it('refuses hostile paths and unknown sessions, and writes nothing', async () => {
    const store = await getStore()
    const host = createSessionHost({ store, agents: { appendix }, namespace: ns() })
    const s = await host.create({ owner: 'o', profile: 'appendix' })
    for (const path of ['/state/plan.json', '/../etc/passwd', '/work/../../x', '/context', '/nowhere/x', 'work\\x', '/work/a\u0000b', '']) {
      await expect(host.writeFiles(s.id, [{ path, data: 'x' }])).rejects.toMatchObject({ name: 'SessionError' })
    }
    expect(await (await host.workspace(s.id)).glob('/**')).toEqual([])
    for (const id of ['nope', '../session/x', 's' + '0'.repeat(32)]) await expect(host.get(id)).rejects.toMatchObject({ code: 'not-found' })
    await expect(host.create({ owner: 'o', profile: 'toString' })).rejects.toMatchObject({ code: 'unknown-profile' })
  })
}
