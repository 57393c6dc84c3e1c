import { spawn, type ChildProcess } from 'node:child_process'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { APPENDIX_INSTRUCTIONS } from '../../fixtures/script-appendix/task.js'
import { mintToken } from '../../src/session/index.js'
import { season } from '../session/harness.js'
import { listeningUrl } from '../session/listening.js'
import { SOURCE_NODE_ARGS } from '../../scripts/from-source.js'

// Kill -9 of a real server process (`scripts/serve.ts` on Postgres) while it forks a session or
// reverts an execution: after a restart the fork is finished (its events and workspace as the
// original's at the point) and the revert is all or nothing.
const url = process.env.PG_URL
if (!url) throw new Error('PG_URL is not set: run `scripts/postgres.sh start` and export the PG_URL it prints (npm test does both)')
const secret = 'changes-kill-secret-changes-kill-secret-01'
let token: string
let server: { proc: ChildProcess; url: string } | undefined

async function start(): Promise<{ proc: ChildProcess; url: string }> {
  const proc = spawn(process.execPath, [...SOURCE_NODE_ARGS, 'scripts/serve.ts'], {
    env: { ...process.env, DATABASE_URL: url, AGENT_VFS_JWT_SECRET: secret, PORT: '0', LEASE_MS: '1500' },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  const address = await listeningUrl(proc, 60_000)
  return (server = { proc, url: address })
}
async function kill(): Promise<void> {
  const s = server!
  s.proc.kill('SIGKILL')
  await new Promise(r => s.proc.once('exit', r))
  server = undefined
}
const call = async (method: string, path: string, body?: unknown) => {
  const res = await fetch(server!.url + path, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body !== undefined && !(body instanceof FormData) ? { 'content-type': 'application/json' } : {}),
    },
    ...(body !== undefined ? { body: body instanceof FormData ? body : JSON.stringify(body) } : {}),
  })
  const text = await res.text()
  return { status: res.status, body: text.startsWith('{') || text.startsWith('[') ? JSON.parse(text) : text }
}

/** A session that ran the appendix to its end. */
async function ran(): Promise<string> {
  const id = (await call('POST', '/sessions', { profile: 'appendix', title: 'kill' })).body.id
  const form = new FormData()
  for (const [p, text] of Object.entries(season())) form.append('file', new Blob([text]), p)
  expect((await call('POST', `/sessions/${id}/files`, form)).status).toBe(201)
  expect((await call('POST', `/sessions/${id}/messages`, { text: APPENDIX_INSTRUCTIONS })).status).toBe(202)
  for (let i = 0; i < 1200; i++) {
    const s = (await call('GET', `/sessions/${id}`)).body
    const ex = (await call('GET', `/sessions/${id}/executions`)).body
    if (s.status === 'idle' && ex[0]?.status === 'completed') return id
    await new Promise(r => setTimeout(r, 100))
  }
  throw new Error('the run did not end')
}
const events = async (id: string) => (await call('GET', `/sessions/${id}/events?limit=1000`)).body.events as any[]

beforeAll(async () => {
  token = await mintToken(secret, `kill-${Date.now()}`)
  await start()
}, 120_000)
afterAll(() => server?.proc.kill('SIGKILL'))

describe('kill -9 during a fork or a revert', () => {
  for (const delayMs of [0, 5, 20, 60]) {
    it(`a fork killed ${delayMs} ms in is absent or, once read after the restart, complete`, async () => {
      const id = await ran()
      const original = await events(id)
      const at = original.find(e => e.type === 'checkpoint')!.seq
      const request = call('POST', `/sessions/${id}/fork`, { at: { seq: at } }).catch(() => undefined)
      await new Promise(r => setTimeout(r, delayMs))
      await kill()
      await request
      await start()
      const forks = (await call('GET', '/sessions?limit=100')).body.items.filter(
        (s: any) => s.title === 'kill (fork)' && s.createdAt > original[0].at,
      )
      for (const f of forks) {
        expect((await call('GET', `/sessions/${f.id}`)).status).toBe(200)
        const got = await events(f.id)
        if (got.some(e => e.type === 'session-forked' && e.from === id)) {
          expect(got.slice(0, -1).map(e => [e.seq, e.type])).toEqual(original.filter(e => e.seq <= at).map(e => [e.seq, e.type]))
          expect(got.at(-1)).toMatchObject({ seq: at + 1, type: 'session-forked', fromSeq: at })
          expect((await call('GET', `/sessions/${f.id}/file?path=/context/episodes/episode-01.fountain`)).status).toBe(200)
        }
      }
    })
  }

  for (const delayMs of [0, 5, 20]) {
    it(`a revert killed ${delayMs} ms in is all or nothing`, async () => {
      const id = await ran()
      const before = (await call('GET', `/sessions/${id}/files?prefix=/outputs`)).body.map((f: any) => f.path)
      expect(before.length).toBeGreaterThan(1)
      const request = call('POST', `/sessions/${id}/executions/e0001/revert`).catch(() => undefined)
      await new Promise(r => setTimeout(r, delayMs))
      await kill()
      await request
      await start()
      const after = (await call('GET', `/sessions/${id}/files?prefix=/outputs`)).body.map((f: any) => f.path)
      expect([[], before]).toContainEqual(after)
    })
  }
})
