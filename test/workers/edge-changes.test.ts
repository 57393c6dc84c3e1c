import { beforeAll, describe, expect, it } from 'vitest'
import { APPENDIX_INSTRUCTIONS } from '../../fixtures/script-appendix/task.js'
import { worstCaseTexts } from '../hostile/diff-worst-case.js'
import { call, createSession, events, expectJson, token, uploadSeason, waitStatus } from './edge-harness.js'

// The history routes on the Worker: each session object serves them over its own Durable Object
// store (history, diff, revert with its conflicts, branches, forks); another owner's session is 404.
let ana: string
let bob: string
beforeAll(async () => {
  ana = await token('ana')
  bob = await token('bob')
})

describe('history routes of a session object', () => {
  it('diff of an execution, revert refused after a later edit (nothing written), then history of the path', async () => {
    const s = await createSession(ana)
    await uploadSeason(ana, s.id)
    await expectJson(call('POST', `/sessions/${s.id}/messages`, ana, { text: APPENDIX_INSTRUCTIONS }), 202)
    await waitStatus(ana, s.id, ['idle'])
    for (let i = 0; i < 400; i++) {
      const ex = await expectJson<any[]>(call('GET', `/sessions/${s.id}/executions`, ana), 200)
      if (ex[0]?.status === 'completed') break
      await new Promise(r => setTimeout(r, 25))
    }
    const diff = await expectJson<any>(call('GET', `/sessions/${s.id}/diff?execution=e0001`, ana), 200)
    expect(diff.entries.find((e: any) => e.path === '/outputs/assets.json')).toMatchObject({ status: 'added', binary: false })
    expect((await call('GET', `/sessions/${s.id}/diff?execution=e0001`, bob)).status).toBe(404)

    await expectJson(call('PUT', `/sessions/${s.id}/file?path=/outputs/appendix.md`, ana, 'edited'), 201)
    const refused = await expectJson<any>(call('POST', `/sessions/${s.id}/executions/e0001/revert`, ana), 409)
    expect(refused.conflicts.map((c: any) => c.path)).toEqual(['/outputs/appendix.md'])
    expect((await call('GET', `/sessions/${s.id}/file?path=/outputs/assets.json`, ana)).status).toBe(200)

    const history = await expectJson<any>(call('GET', `/sessions/${s.id}/history?path=/outputs/appendix.md`, ana), 200)
    const actors = history.entries.map((e: any) => e.changes[0].actor)
    expect(actors[0]).toEqual({ kind: 'execution', executionId: 'e0001' })
    expect(actors.at(-1)).toEqual({ kind: 'api' })
    // A fork after the execution has it, ended, and the files as they are (edge-fork.test.ts: the copy itself).
    const last = (await events(ana, s.id)).at(-1)!.seq
    const fork = await expectJson<any>(call('POST', `/sessions/${s.id}/fork`, ana, { at: { seq: last } }), 201)
    const forkExecutions = await expectJson<any[]>(call('GET', `/sessions/${fork.id}/executions`, ana), 200)
    expect(forkExecutions.map(e => e.status)).toEqual(['completed'])
    expect(await (await call('GET', `/sessions/${fork.id}/file?path=/outputs/appendix.md`, ana)).text()).toBe('edited')
    expect((await call('GET', `/sessions/${s.id}/diff?from=seq:x`, ana)).status).toBe(400)
  })

  // Issue 27, case 1: a file PUT twice, 8,000 lines each time, every line different. Without bounds
  // the line diff ran tens of seconds inside the session object; now it answers with the file
  // listed by sizes and hashes and why it has no line diff.
  it('a worst-case diff answers with the "too large" marker', async () => {
    const { before, after } = worstCaseTexts()
    const s = await createSession(ana)
    await expectJson(call('PUT', `/sessions/${s.id}/file?path=/work/big.txt`, ana, before), 201)
    const history = await expectJson<any>(call('GET', `/sessions/${s.id}/history?path=/work/big.txt`, ana), 200)
    const from = history.entries.at(-1).version
    await expectJson(call('PUT', `/sessions/${s.id}/file?path=/work/big.txt`, ana, after), 201)
    const started = Date.now()
    const diff = await expectJson<any>(call('GET', `/sessions/${s.id}/diff?from=${from}`, ana), 200)
    expect(Date.now() - started).toBeLessThan(20_000)
    const entry = diff.entries.find((e: any) => e.path === '/work/big.txt')
    expect(entry).toMatchObject({ status: 'changed', binary: false, sizeBefore: before.length, sizeAfter: after.length })
    expect(entry.patch).toBeUndefined()
    expect(entry.omitted.message).toMatch(/line by line/)
    expect(entry.hashAfter).toMatch(/^[0-9a-f]{64}$/)
    expect((await call('GET', '/sessions', ana)).status).toBe(200)
  }, 60_000)
})
