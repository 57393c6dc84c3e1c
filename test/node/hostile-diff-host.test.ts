import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { scriptAppendixProfile } from '../../fixtures/script-appendix/profile.js'
import { memoryStore } from '../../src/index.js'
import { createSessionApp, createSessionHost, mintToken, type SessionHost } from '../../src/session/index.js'
import { worstCaseTexts } from '../hostile/diff-worst-case.js'
import { listen } from '../session/http-client.js'

const secret = 'test-secret-test-secret-test-secret-0123'

// Issue 27, case 1, on the Node host: a file PUT twice, 8,000 lines each time, every line different.
// Before the bounds, `GET /sessions/{id}/diff?from=…` did not answer within 20 s, and a plain
// `GET /sessions` of the same owner meanwhile not within 10 s (the line diff held the event loop).
// The client runs in the same process as the server: a blocked loop delays its clock reads too, so
// each deadline below is measured from before the request to after its answer.
describe('a worst-case diff on the Node host', () => {
  let host: SessionHost
  let server: Awaited<ReturnType<typeof listen>>
  let ana: string
  beforeAll(async () => {
    host = createSessionHost({ store: memoryStore(), agents: { appendix: scriptAppendixProfile() }, namespace: 'diffs', pollMs: 20 })
    server = await listen(createSessionApp(host, { auth: { secret } }).fetch)
    ana = await mintToken(secret, 'ana')
  })
  afterAll(async () => {
    await host?.stop()
    await server?.close()
  })

  const timed = async (method: string, path: string, body?: string) => {
    const started = Date.now()
    const json: Record<string, string> = body?.startsWith('{') ? { 'content-type': 'application/json' } : {}
    const res = await fetch(server.url + path, {
      method,
      headers: { authorization: `Bearer ${ana}`, ...json },
      ...(body !== undefined ? { body } : {}),
    })
    const text = await res.text()
    return { status: res.status, body: text.startsWith('{') || text.startsWith('[') ? JSON.parse(text) : text, ms: Date.now() - started }
  }

  it('ten diffs asked at once answer with the "too large" marker, and GET /sessions answers meanwhile', async () => {
    const { before, after } = worstCaseTexts()
    const s = (await timed('POST', '/sessions', JSON.stringify({ profile: 'appendix' }))).body
    expect((await timed('PUT', `/sessions/${s.id}/file?path=/work/big.txt`, before)).status).toBe(201)
    const history = (await timed('GET', `/sessions/${s.id}/history?path=/work/big.txt`)).body
    const from = history.entries.at(-1).version
    expect((await timed('PUT', `/sessions/${s.id}/file?path=/work/big.txt`, after)).status).toBe(201)

    const diffs = Array.from({ length: 10 }, () => timed('GET', `/sessions/${s.id}/diff?from=${from}`))
    const list = timed('GET', '/sessions')
    const sessions = await list
    expect(sessions.status).toBe(200)
    expect(sessions.ms).toBeLessThan(10_000)
    for (const d of await Promise.all(diffs)) {
      expect(d.status).toBe(200)
      expect(d.ms).toBeLessThan(20_000)
      const entry = d.body.entries.find((e: any) => e.path === '/work/big.txt')
      expect(entry).toMatchObject({ status: 'changed', binary: false, sizeBefore: before.length, sizeAfter: after.length })
      expect(entry.patch).toBeUndefined()
      expect(entry.omitted.message).toMatch(/line by line/)
      expect(entry.hashBefore).toMatch(/^[0-9a-f]{64}$/)
    }
  }, 120_000)

  it('a branch diff is bounded the same way', async () => {
    const { before, after } = worstCaseTexts()
    const s = (await timed('POST', '/sessions', JSON.stringify({ profile: 'appendix' }))).body
    expect((await timed('PUT', `/sessions/${s.id}/file?path=/work/big.txt`, before)).status).toBe(201)
    const branch = await host.changes.branch(s.id, 'try')
    await branch.writeFile('/work/big.txt', after)
    const d = await timed('GET', `/sessions/${s.id}/branches/try/diff`)
    expect(d.status).toBe(200)
    expect(d.ms).toBeLessThan(20_000)
    const entry = d.body.entries.find((e: any) => e.path === '/work/big.txt')
    expect(entry.omitted.reason).toMatch(/^(edits|time)$/)
    expect(entry.hashAfter).toMatch(/^[0-9a-f]{64}$/)
  }, 60_000)
})
