import { beforeAll, describe, expect, it } from 'vitest'
import { APPENDIX_INSTRUCTIONS } from '../../fixtures/script-appendix/task.js'
import type { AgentProfile } from '../../src/session/index.js'
import { appendixProfile, call, configureEdge, createSession, expectJson, token, uploadSeason, waitStatus } from './edge-harness.js'

// Propose → review → apply on the Worker: the same host and routes, over a session object's Durable
// Object store. The execution's writes wait in a branch; the approval is the diff; approving lands it.
const base = appendixProfile()
const proposing: AgentProfile = { ...base, setup: async e => ({ ...(await base.setup(e)), writes: 'propose' as const }) }
let ana: string
beforeAll(async () => {
  configureEdge({ agents: { proposing } })
  ana = await token('ana')
})

describe('proposals of a session object', () => {
  it('waits for review with the diff, lands one commit on approve; a second session denied writes nothing', async () => {
    const ids: string[] = []
    for (let i = 0; i < 2; i++) {
      const s = await createSession(ana, 'proposing')
      await uploadSeason(ana, s.id)
      await expectJson(call('POST', `/sessions/${s.id}/messages`, ana, { text: APPENDIX_INSTRUCTIONS }), 202)
      await waitStatus(ana, s.id, ['waiting_approval'])
      expect((await call('GET', `/sessions/${s.id}/file?path=/outputs/appendix.md`, ana)).status).toBe(404)
      const [p] = await expectJson<any[]>(call('GET', `/sessions/${s.id}/pending`, ana), 200)
      expect(p).toMatchObject({ id: 'e0001-proposal', toolName: 'apply_changes', proposal: { branch: 'propose-e0001' } })
      expect(p.proposal.diff.entries.map((e: any) => e.path)).toContain('/outputs/appendix.md')
      ids.push(s.id)
    }
    const landed = await expectJson<any>(call('POST', `/sessions/${ids[0]}/pending/e0001-proposal`, ana, { decision: 'approve' }), 200)
    expect(landed.status).toBe('landed')
    expect((await call('GET', `/sessions/${ids[0]}/file?path=/outputs/appendix.md`, ana)).status).toBe(200)
    const history = await expectJson<any>(call('GET', `/sessions/${ids[0]}/history?path=/outputs/appendix.md`, ana), 200)
    expect(history.entries.map((e: any) => e.changes[0].actor)).toEqual([{ kind: 'api', proposal: 'e0001' }])
    await waitStatus(ana, ids[0], ['idle'])

    const denied = await expectJson<any>(call('POST', `/sessions/${ids[1]}/pending/e0001-proposal`, ana, { decision: 'deny' }), 200)
    expect(denied.status).toBe('discarded')
    expect((await call('GET', `/sessions/${ids[1]}/file?path=/outputs/appendix.md`, ana)).status).toBe(404)
    expect(await expectJson<any[]>(call('GET', `/sessions/${ids[1]}/branches`, ana), 200)).toEqual([])
  })
})
