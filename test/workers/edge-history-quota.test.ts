import { runDurableObjectAlarm } from 'cloudflare:test'
import { env } from 'cloudflare:workers'
import { beforeAll, describe, expect, it } from 'vitest'
import { call, configureEdge, createSession, expectJson, token } from './edge-harness.js'

// Issue 27, case 2, on the Worker: an owner quota of 4 MB, 30 PUTs of 1 MB to one path. History counts
// inside the owner's maxBytes (files + history): the 4th PUT is 413 `quota`, files + history never pass 4 MB;
// the session object's alarm (set by every write) runs the default retention by itself, which gives room back.
let ana: string
beforeAll(async () => {
  configureEdge({ quota: { maxBytes: 4_000_000 } })
  ana = await token('history-quota-ana')
})

const put = (id: string, fill: number) =>
  call('PUT', `/sessions/${id}/file?path=/work/big.bin`, ana, new Uint8Array(1_000_000).fill(fill), {
    'content-type': 'application/octet-stream',
  })

describe('history inside the owner byte quota (Worker)', () => {
  it('30 × 1 MB PUTs to one path: 413 quota once full, stored bytes never over 4 MB; the alarm collects history and a PUT fits again', async () => {
    const s = await createSession(ana)
    const statuses: number[] = []
    let code: string | undefined
    for (let i = 1; i <= 30; i++) {
      const res = await put(s.id, i)
      statuses.push(res.status)
      const body = (await res.json()) as { error?: { code: string } }
      if (res.status === 413) code ??= body.error?.code
      // Whatever was answered, files + history never pass the owner's 4 MB.
      const usage = await expectJson<{ storage: { files: number; history: number } }>(call('GET', `/sessions/${s.id}/usage`, ana), 200)
      expect(usage.storage.files + usage.storage.history, `after PUT ${i}`).toBeLessThanOrEqual(4_000_000)
    }
    // The alarm each write sets may run between two PUTs and free room (on a loaded machine even before
    // the 4th): later PUTs may fit again, but most are refused.
    expect(statuses.slice(0, 3)).toEqual([201, 201, 201])
    expect(statuses).toContain(413)
    expect(statuses.filter(x => x === 201).length).toBeLessThan(15)
    expect(code).toBe('quota')
    const before = await expectJson<{ storage: { files: number; history: number } }>(call('GET', `/sessions/${s.id}/usage`, ana), 200)
    expect(before.storage.files).toBe(1_000_000)
    expect(before.storage.files + before.storage.history).toBeLessThanOrEqual(4_000_000)
    expect(before.storage.history).toBeGreaterThan(0)
    // The alarm the writes set runs the retention pass by itself: history down to half the owner's quota.
    await runDurableObjectAlarm(env.SESSIONS.getByName(s.id)) // at once if it is still pending
    const deadline = Date.now() + 30_000
    let after = before
    while (after.storage.history > 2_000_000 && Date.now() < deadline) {
      await new Promise(r => setTimeout(r, 100))
      after = await expectJson(call('GET', `/sessions/${s.id}/usage`, ana), 200)
    }
    expect(after.storage.history).toBeLessThanOrEqual(2_000_000)
    expect((await put(s.id, 99)).status).toBe(201)
  }, 120_000)
})
