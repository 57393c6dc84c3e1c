import { expect, it } from 'vitest'
import { scriptAppendixProfile } from '../../fixtures/script-appendix/profile.js'
import { APPENDIX_INSTRUCTIONS, FOLLOW_UP_INSTRUCTIONS } from '../../fixtures/script-appendix/task.js'
import type { VfsStore } from '../../src/contract/store.js'
import { createSessionHost, type SessionHost } from '../../src/session/index.js'
import { completions, expectContiguous, gatedAppendix, until, uploadSeason } from './harness.js'

const agents = {
  appendix: scriptAppendixProfile(),
  asking: scriptAppendixProfile({ askFirst: true, approveRunJs: true }),
}

/** The session lifecycle on one store, end to end with the script-appendix profile. */
export function describeLifecycle(getStore: () => Promise<VfsStore>) {
  let host: SessionHost
  const open = async () =>
    (host ??= createSessionHost({
      store: await getStore(),
      agents,
      namespace: `t${Math.random().toString(36).slice(2)}`,
      pollMs: 50,
    }))

  it('runs the appendix, then a queued follow-up, with one contiguous event log', async () => {
    const h = await open()
    const s = await h.create({ owner: 'ana', profile: 'appendix', title: 'Season 1' })
    await uploadSeason(h, s.id)
    await h.send(s.id, { text: APPENDIX_INSTRUCTIONS })
    // Queued while the first runs (or after): becomes the second execution.
    await h.send(s.id, { text: FOLLOW_UP_INSTRUCTIONS })
    await until(h, s.id, ['idle'])
    const executions = await h.executions(s.id)
    expect(executions.map(e => [e.id, e.status])).toEqual([
      ['e0001', 'completed'],
      ['e0002', 'completed'],
    ])
    const ws = await h.workspace(s.id)
    expect(await ws.exists('/outputs/assets.json')).toBe(true)
    expect(await ws.exists('/outputs/characters-by-location.md')).toBe(true)
    const events = await h.events(s.id, { after: 0 })
    expectContiguous(events)
    const done = completions(events)
    expect(new Set(done).size).toBe(done.length)
    expect(events.filter(e => e.type === 'execution-end').map(e => (e as any).status)).toEqual(['completed', 'completed'])
    expect((await h.messages(s.id)).map(m => [m.state, m.executionId])).toEqual([
      ['delivered', 'e0001'],
      ['delivered', 'e0002'],
    ])
    // Paged reads give the same events.
    const tail = await h.events(s.id, { after: 5, limit: 3 })
    expect(tail.map(e => e.seq)).toEqual([6, 7, 8])
  })

  it('waits for an answer, then an approval; answering resumes the execution', async () => {
    const h = await open()
    const s = await h.create({ owner: 'ana', profile: 'asking' })
    await uploadSeason(h, s.id)
    await h.send(s.id, { text: APPENDIX_INSTRUCTIONS })
    expect(await until(h, s.id, ['waiting_input'])).toBe('waiting_input')
    const [question] = await h.pending(s.id)
    expect(question.kind).toBe('question')
    await expect(h.answer(s.id, question.id, { decision: 'approve' })).rejects.toMatchObject({ code: 'invalid' })
    await h.answer(s.id, question.id, { answer: 'Season One' })
    expect(await until(h, s.id, ['waiting_approval'])).toBe('waiting_approval')
    const [approval] = await h.pending(s.id)
    expect(approval).toMatchObject({ kind: 'approval', toolName: 'run_js' })
    await expect(h.answer(s.id, question.id, { answer: 'again' })).rejects.toMatchObject({ code: 'not-waiting' })
    // Deny the first run_js, approve the next one once, then always.
    await h.answer(s.id, approval.id, { decision: 'deny', message: 'not yet' })
    expect(await until(h, s.id, ['waiting_approval'])).toBe('waiting_approval')
    const [second] = await h.pending(s.id)
    expect(second.id).not.toBe(approval.id)
    await h.answer(s.id, second.id, { decision: 'approve' })
    expect(await until(h, s.id, ['waiting_approval'])).toBe('waiting_approval')
    const [third] = await h.pending(s.id)
    await h.answer(s.id, third.id, { decision: 'always' })
    await until(h, s.id, ['idle'])
    expect((await h.events(s.id)).find(e => e.type === 'tool-result' && e.toolName === 'run_js' && !e.ok)).toMatchObject({
      error: { code: 'denied' },
    })
    expect((await h.executions(s.id))[0].status).toBe('completed')
    const events = await h.events(s.id)
    expect(events.find(e => e.type === 'tool-result' && e.toolName === 'ask_user')).toMatchObject({
      ok: true,
      output: { answer: 'Season One' },
    })
    const types = events.map(e => e.type)
    expect(types).toContain('question')
    expect(types).toContain('approval-required')
    expect(types.filter(t => t === 'pending-answered')).toHaveLength(4)
  })

  it('hands a steer to the running execution at its next window, recorded as such', async () => {
    const gated = gatedAppendix(3)
    const h = createSessionHost({
      store: await getStore(),
      agents: { appendix: gated.profile },
      namespace: `s${Math.random().toString(36).slice(2)}`,
      pollMs: 50,
    })
    const s = await h.create({ owner: 'ana', profile: 'appendix' })
    await uploadSeason(h, s.id)
    await h.send(s.id, { text: APPENDIX_INSTRUCTIONS })
    await gated.reached
    await h.send(s.id, { text: 'Name the appendix "Season One".', steer: true })
    gated.open()
    await until(h, s.id, ['idle'])
    const events = await h.events(s.id)
    const delivered = events.find(e => e.type === 'steer-delivered')
    expect(delivered).toMatchObject({ executionId: 'e0001' })
    // Delivered at a window boundary, before the execution ended, and not turned into a new execution.
    const windowAfter = events.find(e => e.type === 'window-start' && e.seq > delivered!.seq)
    expect(windowAfter).toBeDefined()
    expect(events.findIndex(e => e.type === 'execution-end')).toBeGreaterThan(events.indexOf(delivered!))
    expect((await h.executions(s.id)).map(e => [e.id, e.status])).toEqual([['e0001', 'completed']])
    expect((await h.messages(s.id)).find(m => m.mode === 'steer')).toMatchObject({ state: 'delivered', executionId: 'e0001' })
  })

  it('aborts from the API: interrupted at the next call, then resumed without redoing a step', async () => {
    const gated = gatedAppendix(5)
    const h = createSessionHost({
      store: await getStore(),
      agents: { appendix: gated.profile },
      namespace: `a${Math.random().toString(36).slice(2)}`,
      pollMs: 50,
    })
    const s = await h.create({ owner: 'ana', profile: 'appendix' })
    await uploadSeason(h, s.id)
    await expect(h.abort(s.id)).rejects.toMatchObject({ code: 'not-running' })
    await h.send(s.id, { text: APPENDIX_INSTRUCTIONS })
    await gated.reached
    await h.abort(s.id)
    await until(h, s.id, ['idle'])
    expect((await h.executions(s.id))[0].status).toBe('interrupted')
    gated.open()
    await h.resume(s.id)
    await until(h, s.id, ['idle'])
    await new Promise(r => setTimeout(r, 50))
    await until(h, s.id, ['idle'])
    const events = await h.events(s.id)
    expect((await h.executions(s.id))[0].status).toBe('completed')
    const done = completions(events)
    expect(new Set(done).size).toBe(done.length)
    expect(done).toContain('e0001:survey')
    expect(events.filter(e => e.type === 'abort-requested')).toHaveLength(1)
    expect(events.filter(e => e.type === 'execution-end').map(e => (e as any).status)).toEqual(['interrupted', 'completed'])
  })

  it('closes (observers end), refuses messages while closed, reopens, deletes everything', async () => {
    const h = await open()
    const s = await h.create({ owner: 'bo', profile: 'appendix', title: 'to delete' })
    const seen: string[] = []
    const watcher = (async () => {
      for await (const e of h.observe(s.id, { heartbeatMs: 0 })) seen.push(e.type)
    })()
    await h.close(s.id)
    await watcher
    expect(seen.at(-1)).toBe('session-closed')
    await expect(h.send(s.id, { text: 'hello' })).rejects.toMatchObject({ code: 'closed' })
    expect((await h.reopen(s.id)).status).toBe('idle')
    await h.writeFiles(s.id, [{ path: '/work/a.txt', data: 'a' }])
    await h.delete(s.id)
    await expect(h.get(s.id)).rejects.toMatchObject({ code: 'not-found' })
    expect((await h.list('bo')).items.map(x => x.id)).not.toContain(s.id)
  })

  it('closes and reopens through the state table: of two closes (or reopens) at once, one moves the status and is logged', async () => {
    const h = await open()
    const s = await h.create({ owner: 'bo', profile: 'appendix' })
    const closed = await Promise.all([h.close(s.id), h.close(s.id)])
    expect(closed.map(r => r.status)).toEqual(['closed', 'closed'])
    expect((await h.close(s.id)).closedAt).toBe(closed[0].closedAt ?? closed[1].closedAt)
    const reopened = await Promise.all([h.reopen(s.id), h.reopen(s.id)])
    expect(reopened.map(r => r.status)).toEqual(['idle', 'idle'])
    expect(reopened[0].closedAt).toBeUndefined()
    expect((await h.reopen(s.id)).status).toBe('idle')
    const types = (await h.events(s.id)).map(e => e.type)
    expect(types.filter(t => t === 'session-closed')).toHaveLength(1)
    expect(types.filter(t => t === 'session-reopened')).toHaveLength(1)
  })

  it('observe sends heartbeats while idle and ends after its idle timeout', async () => {
    const h = await open()
    const s = await h.create({ owner: 'ed', profile: 'appendix' })
    const got: string[] = []
    for await (const e of h.observe(s.id, { heartbeatMs: 30, idleTimeoutMs: 400 })) got.push(e.type)
    expect(got[0]).toBe('session-created')
    expect(got.filter(t => t === 'heartbeat').length).toBeGreaterThanOrEqual(2)
    const stop = new AbortController()
    const ended = (async () => {
      for await (const _ of h.observe(s.id, { after: 1, heartbeatMs: 0, signal: stop.signal })) void _
    })()
    stop.abort()
    await ended
  })

  it("lists an owner's sessions newest first, paged, and never another owner's", async () => {
    const h = await open()
    const made = []
    for (let i = 0; i < 5; i++) made.push(await h.create({ owner: 'cy', profile: 'appendix', title: `t${i}` }))
    await h.create({ owner: 'dee', profile: 'appendix' })
    const first = await h.list('cy', { limit: 2 })
    const second = await h.list('cy', { limit: 2, cursor: first.next })
    const third = await h.list('cy', { limit: 2, cursor: second.next })
    expect([...first.items, ...second.items, ...third.items].map(x => x.title)).toEqual(['t4', 't3', 't2', 't1', 't0'])
    expect(third.next).toBeUndefined()
    await expect(h.get(made[0].id, 'dee')).rejects.toMatchObject({ code: 'not-found' })
  })
}
