import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { memoryStore } from '../../src/index.js'
import { createSessionApp, createSessionHost, mintToken, type SessionHost } from '../../src/session/index.js'
import { gatedAppendix } from '../session/harness.js'
import { listen } from '../session/http-client.js'

// Issue 27, case 2, against the Node host: with an owner quota of 4 MB, 30 PUTs of 1 MB to one path
// answered 201 and history kept every version. History now counts inside the owner's maxBytes
// (files + history): the 4th PUT is 413 `quota`, what is stored stays under 4 MB, usage shows both
// parts, and the host's retention pass (collectHistory, run every lease period by npm run serve)
// frees room by dropping the oldest versions.
const secret = 'test-secret-test-secret-test-secret-0123'
const store = memoryStore()
const namespace = 'history-quota'
let host: SessionHost
let server: Awaited<ReturnType<typeof listen>>
beforeAll(async () => {
  host = createSessionHost({ store, namespace, agents: { gated: gatedAppendix(1).profile }, quota: { maxBytes: 4_000_000 } })
  server = await listen(createSessionApp(host, { auth: { secret } }).fetch)
})
afterAll(async () => {
  await host.stop()
  await server.close()
})

async function call(method: string, path: string, owner: string, body?: BodyInit): Promise<Response> {
  const headers = { authorization: `Bearer ${await mintToken(secret, owner)}` }
  return fetch(server.url + path, { method, headers, ...(body !== undefined ? { body } : {}) })
}
const create = async (owner: string) => {
  const res = await fetch(server.url + '/sessions', {
    method: 'POST',
    headers: { authorization: `Bearer ${await mintToken(secret, owner)}`, 'content-type': 'application/json' },
    body: JSON.stringify({ profile: 'gated' }),
  })
  return ((await res.json()) as { id: string }).id
}
const stored = async (id: string) => {
  const history = (await store.history!.usage(namespace, `workspace/${id}`)).bytes
  const files = (await host.workspace(id)).usage().bytes
  return { files, history, total: files + history }
}

describe('history inside the owner byte quota (Node host)', () => {
  it('30 × 1 MB PUTs to one path with maxBytes 4 MB: 413 quota from the 4th, stored bytes stay under 4 MB; retention makes room', async () => {
    const id = await create('ana')
    const statuses: number[] = []
    let refusal: { error: { code: string; message: string } } | undefined
    for (let i = 1; i <= 30; i++) {
      const res = await call('PUT', `/sessions/${id}/file?path=/work/big.bin`, 'ana', new Uint8Array(1_000_000).fill(i))
      statuses.push(res.status)
      if (res.status === 413) refusal ??= (await res.json()) as typeof refusal
      else await res.body?.cancel()
    }
    expect(statuses.slice(0, 3)).toEqual([201, 201, 201])
    expect(statuses.slice(3).every(s => s === 413)).toBe(true)
    expect(refusal!.error.code).toBe('quota')
    expect((await stored(id)).total).toBeLessThanOrEqual(4_000_000)
    // The cost is visible: the session's usage shows files and history.
    const usage = (await (await call('GET', `/sessions/${id}/usage`, 'ana')).json()) as { storage: { files: number; history: number } }
    expect(usage.storage.files).toBe(1_000_000)
    expect(usage.storage.history).toBeGreaterThanOrEqual(2_000_000)
    // The owner's other sessions cannot use the room history takes.
    const other = await create('ana')
    expect((await call('PUT', `/sessions/${other}/file?path=/work/x.bin`, 'ana', new Uint8Array(1_000_000))).status).toBe(413)
    // The default retention pass keeps a session's history to half the owner's quota, oldest first.
    const report = await host.collectHistory()
    expect(report.removedChanges).toBeGreaterThan(0)
    expect((await stored(id)).history).toBeLessThanOrEqual(2_000_000)
    expect((await call('PUT', `/sessions/${id}/file?path=/work/big.bin`, 'ana', new Uint8Array(1_000_000).fill(99))).status).toBe(201)
    // What retention kept still shows and diffs: the last write, against the version before it.
    const last = (await host.changes.history(id)).at(-1)!
    const diff = await host.changes.diff(id, { from: { version: last.version - 1 } })
    expect(diff.entries.map(e => [e.path, e.status])).toEqual([['/work/big.bin', 'changed']])
  }, 120_000)
})
