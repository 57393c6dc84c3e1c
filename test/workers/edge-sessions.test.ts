import { env } from 'cloudflare:workers'
import { beforeAll, describe, expect, it } from 'vitest'
import { APPENDIX_INSTRUCTIONS, FOLLOW_UP_INSTRUCTIONS } from '../../fixtures/script-appendix/task.js'
import { completions, expectContiguous, gatedAppendix } from '../session/harness.js'
import { heldSetup } from '../session/held-setup.js'
import { appendixProfile, call, configureEdge, createSession, events, expectJson, token, uploadSeason, waitStatus } from './edge-harness.js'

// The session lifecycle inside SessionObject, end to end through the Worker (D1 index, routing,
// the object's own hono app) on the script-appendix profile, run_js on the workerd engine.
const steerGate = gatedAppendix(3, { base: appendixProfile() })
const abortGate = gatedAppendix(5, { base: appendixProfile() })
// Its setup waits until the test opens it: acknowledged work, nothing running yet.
const held = heldSetup(appendixProfile())
let ana: string

beforeAll(async () => {
  configureEdge({ agents: { steered: steerGate.profile, aborted: abortGate.profile, held: held.profile } })
  ana = await token('ana')
})

describe('sessions in Durable Objects', () => {
  it('runs the appendix, then a queued follow-up, with one contiguous event log; D1 lists it with its status', async () => {
    const s = await createSession(ana, 'appendix', 'Season 1')
    expect(s).toMatchObject({ owner: 'ana', profile: 'appendix', status: 'idle', title: 'Season 1' })
    await uploadSeason(ana, s.id)
    await expectJson(call('POST', `/sessions/${s.id}/messages`, ana, { text: APPENDIX_INSTRUCTIONS }), 202)
    await expectJson(call('POST', `/sessions/${s.id}/messages`, ana, { text: FOLLOW_UP_INSTRUCTIONS }), 202)
    await waitStatus(ana, s.id, ['idle'])
    // The second execution may not have started when the first ended: wait for both to complete.
    for (let i = 0; i < 400; i++) {
      const ex = await expectJson<any[]>(call('GET', `/sessions/${s.id}/executions`, ana), 200)
      if (ex.length === 2 && ex.every(e => e.status === 'completed')) break
      await new Promise(r => setTimeout(r, 25))
    }
    await waitStatus(ana, s.id, ['idle'])
    const executions = await expectJson<any[]>(call('GET', `/sessions/${s.id}/executions`, ana), 200)
    expect(executions.map(e => [e.id, e.status])).toEqual([
      ['e0001', 'completed'],
      ['e0002', 'completed'],
    ])
    const assets = await call('GET', `/sessions/${s.id}/file?path=/outputs/assets.json`, ana)
    expect(assets.status).toBe(200)
    expect(Object.keys(await assets.json())).toEqual(['characters', 'locations', 'props'])
    expect((await call('GET', `/sessions/${s.id}/file?path=/outputs/characters-by-location.md`, ana)).status).toBe(200)
    const all = await events(ana, s.id)
    expectContiguous(all)
    const done = completions(all)
    expect(new Set(done).size).toBe(done.length)
    expect(all.filter(e => e.type === 'execution-end').map(e => (e as any).status)).toEqual(['completed', 'completed'])
    // The D1 row follows the object: status, title and the bytes the workspace holds.
    const row = await env.DB.prepare('SELECT owner, status, title, bytes FROM sessions WHERE id = ?').bind(s.id).first<any>()
    expect(row).toMatchObject({ owner: 'ana', status: 'idle', title: 'Season 1' })
    expect(row.bytes).toBeGreaterThan(1000)
    const page = await expectJson<any>(call('GET', '/sessions', ana), 200)
    expect(page.items.find((x: any) => x.id === s.id)).toMatchObject({ status: 'idle', executions: 2 })
  })

  it('from the 202 to a first message the session is running on e0001: GET, the D1 list and the 202 say so (issue 28)', async () => {
    const s = await createSession(ana, 'held', 'held')
    await uploadSeason(ana, s.id)
    const sent = await expectJson(call('POST', `/sessions/${s.id}/messages`, ana, { text: APPENDIX_INSTRUCTIONS }), 202)
    // The execution's setup is still held: a client polling "until idle" must not stop here.
    expect(await expectJson(call('GET', `/sessions/${s.id}`, ana), 200)).toMatchObject({ status: 'running', executionId: 'e0001' })
    const page = await expectJson<any>(call('GET', '/sessions?limit=100', ana), 200)
    expect(page.items.find((x: any) => x.id === s.id)).toMatchObject({ status: 'running' })
    expect(sent).toMatchObject({ n: 1, mode: 'task', state: 'queued', session: { status: 'running', executionId: 'e0001' } })
    held.open()
    await waitStatus(ana, s.id, ['idle'])
    const executions = await expectJson<any[]>(call('GET', `/sessions/${s.id}/executions`, ana), 200)
    expect(executions.map(e => [e.id, e.status])).toEqual([['e0001', 'completed']])
    expect((await events(ana, s.id)).filter(e => e.type === 'status').map(e => (e as any).status)).toEqual(['running', 'idle'])
  })

  it('waits for an answer, then approvals; answering resumes the execution', async () => {
    const s = await createSession(ana, 'appendix-asking')
    await uploadSeason(ana, s.id)
    await expectJson(call('POST', `/sessions/${s.id}/messages`, ana, { text: APPENDIX_INSTRUCTIONS }), 202)
    expect(await waitStatus(ana, s.id, ['waiting_input'])).toBe('waiting_input')
    const [question] = await expectJson<any[]>(call('GET', `/sessions/${s.id}/pending`, ana), 200)
    expect(question.kind).toBe('question')
    await expectJson(call('POST', `/sessions/${s.id}/pending/${question.id}`, ana, { answer: 'Season One' }), 202)
    expect(await waitStatus(ana, s.id, ['waiting_approval'])).toBe('waiting_approval')
    const [approval] = await expectJson<any[]>(call('GET', `/sessions/${s.id}/pending`, ana), 200)
    expect(approval).toMatchObject({ kind: 'approval', toolName: 'run_js' })
    await expectJson(call('POST', `/sessions/${s.id}/pending/${approval.id}`, ana, { decision: 'always' }), 202)
    await waitStatus(ana, s.id, ['idle'])
    const all = await events(ana, s.id)
    expect(all.find(e => e.type === 'tool-result' && (e as any).toolName === 'ask_user')).toMatchObject({
      ok: true,
      output: { answer: 'Season One' },
    })
    expect(
      all
        .filter(e => e.type === 'execution-end')
        .map(e => (e as any).status)
        .at(-1),
    ).toBe('completed')
  })

  it('hands a steer to the running execution at its next window', async () => {
    const s = await createSession(ana, 'steered')
    await uploadSeason(ana, s.id)
    await expectJson(call('POST', `/sessions/${s.id}/messages`, ana, { text: APPENDIX_INSTRUCTIONS }), 202)
    await steerGate.reached
    await expectJson(call('POST', `/sessions/${s.id}/messages`, ana, { text: 'Name the appendix "Season One".', steer: true }), 202)
    steerGate.open()
    await waitStatus(ana, s.id, ['idle'])
    const all = await events(ana, s.id)
    const delivered = all.find(e => e.type === 'steer-delivered')
    expect(delivered).toMatchObject({ executionId: 'e0001' })
    expect(all.find(e => e.type === 'window-start' && e.seq > delivered!.seq)).toBeDefined()
    const executions = await expectJson<any[]>(call('GET', `/sessions/${s.id}/executions`, ana), 200)
    expect(executions.map(e => [e.id, e.status])).toEqual([['e0001', 'completed']])
  })

  it('aborts: interrupted at the next call, then resumed without redoing a step', async () => {
    const s = await createSession(ana, 'aborted')
    await uploadSeason(ana, s.id)
    expect((await call('POST', `/sessions/${s.id}/abort`, ana)).status).toBe(409)
    await expectJson(call('POST', `/sessions/${s.id}/messages`, ana, { text: APPENDIX_INSTRUCTIONS }), 202)
    await abortGate.reached
    await expectJson(call('POST', `/sessions/${s.id}/abort`, ana), 202)
    await waitStatus(ana, s.id, ['idle'])
    abortGate.open()
    await expectJson(call('POST', `/sessions/${s.id}/resume`, ana), 202)
    for (let i = 0; i < 400; i++) {
      const ex = await expectJson<any[]>(call('GET', `/sessions/${s.id}/executions`, ana), 200)
      if (ex[0]?.status === 'completed') break
      await new Promise(r => setTimeout(r, 25))
    }
    await waitStatus(ana, s.id, ['idle'])
    const all = await events(ana, s.id)
    const done = completions(all)
    expect(new Set(done).size).toBe(done.length)
    expect(all.filter(e => e.type === 'execution-end').map(e => (e as any).status)).toEqual(['interrupted', 'completed'])
  })

  it('closes (messages refused), reopens, deletes: the object and its D1 row are gone', async () => {
    const s = await createSession(ana, 'appendix', 'to delete')
    expect((await expectJson<any>(call('POST', `/sessions/${s.id}/close`, ana), 200)).status).toBe('closed')
    expect((await call('POST', `/sessions/${s.id}/messages`, ana, { text: 'hello' })).status).toBe(409)
    expect((await expectJson<any>(call('POST', `/sessions/${s.id}/reopen`, ana), 200)).status).toBe('idle')
    await expectJson(call('PUT', `/sessions/${s.id}/file?path=/work/a.txt`, ana, new TextEncoder().encode('a')), 201)
    await expectJson(call('DELETE', `/sessions/${s.id}`, ana), 200)
    expect((await call('GET', `/sessions/${s.id}`, ana)).status).toBe(404)
    expect(await env.DB.prepare('SELECT id FROM sessions WHERE id = ?').bind(s.id).first()).toBeNull()
    // Nothing stays in the object's storage.
    const stub = env.SESSIONS.getByName(s.id)
    const { runInDurableObject } = await import('cloudflare:test')
    const tables = await runInDurableObject(stub, (_o, state) =>
      state.storage.sql.exec("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE '\\_cf\\_%' ESCAPE '\\'").toArray(),
    )
    expect(tables).toEqual([])
  })

  it("lists an owner's sessions newest first, paged, never another owner's", async () => {
    const cy = await token('cy')
    for (let i = 0; i < 5; i++) await createSession(cy, 'appendix', `t${i}`)
    await createSession(await token('dee'))
    const first = await expectJson<any>(call('GET', '/sessions?limit=2', cy), 200)
    const second = await expectJson<any>(call('GET', `/sessions?limit=2&cursor=${first.next}`, cy), 200)
    const third = await expectJson<any>(call('GET', `/sessions?limit=2&cursor=${second.next}`, cy), 200)
    expect([...first.items, ...second.items, ...third.items].map((x: any) => x.title)).toEqual(['t4', 't3', 't2', 't1', 't0'])
    expect(third.next).toBeUndefined()
  })
})
