import { spawn, type ChildProcess } from 'node:child_process'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { mintToken } from '../../src/session/index.js'
import { listeningUrl } from '../session/listening.js'

// A program's question through the HTTP API, answered after kill -9 of the server that asked it:
// real server processes (test/session/program-ask-server.ts) on one real Postgres.
const url = process.env.PG_URL
if (!url) throw new Error('PG_URL is not set: run `scripts/postgres.sh start` and export the PG_URL it prints (npm test does both)')
const secret = 'program-ask-secret-program-ask-secret-0123'
let token: string
const procs: ChildProcess[] = []

async function start(): Promise<{ proc: ChildProcess; url: string }> {
  const proc = spawn(process.execPath, ['--conditions', 'agent-vfs:source', '--import', 'tsx', 'test/session/program-ask-server.ts'], {
    env: { ...process.env, DATABASE_URL: url, AGENT_VFS_JWT_SECRET: secret, LEASE_MS: '1500' },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  procs.push(proc)
  const address = await listeningUrl(proc, 60_000)
  return { proc, url: address }
}

const call = (base: string, method: string, path: string, body?: unknown) =>
  fetch(base + path, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  })

async function waitStatus(base: string, id: string, statuses: string[]): Promise<string> {
  for (let i = 0; ; i++) {
    const status = ((await (await call(base, 'GET', `/sessions/${id}`)).json()) as { status: string }).status
    if (statuses.includes(status)) return status
    if (i > 600) {
      const events = await (await call(base, 'GET', `/sessions/${id}/events`)).text()
      throw new Error(`session ${id} stayed ${status}: ${events.slice(-3000)}`)
    }
    await new Promise(r => setTimeout(r, 100))
  }
}

async function files(base: string, id: string): Promise<Record<string, number>> {
  const list = (await (await call(base, 'GET', `/sessions/${id}/files`)).json()) as Array<{ path: string; version: number }>
  return Object.fromEntries(list.filter(f => f.path.endsWith('before.md') || f.path.endsWith('title.md')).map(f => [f.path, f.version]))
}

beforeAll(async () => {
  token = await mintToken(secret, 'ask-owner')
}, 60_000)
afterAll(() => {
  for (const p of procs) p.kill('SIGKILL')
})

describe('a question asked from inside a run_js program, over HTTP (Node, Postgres)', () => {
  it('shows as a pending question; after kill -9 of the server, another answers it and the program resumes without redoing its write', async () => {
    const a = await start()
    const id = ((await (await call(a.url, 'POST', '/sessions', { profile: 'asks' })).json()) as { id: string }).id
    expect((await call(a.url, 'POST', `/sessions/${id}/messages`, { text: 'go' })).status).toBe(202)
    expect(await waitStatus(a.url, id, ['waiting_input', 'failed'])).toBe('waiting_input')
    const pending = (await (await call(a.url, 'GET', `/sessions/${id}/pending`)).json()) as Array<Record<string, unknown>>
    expect(pending).toEqual([
      expect.objectContaining({
        kind: 'question',
        toolName: 'run_js',
        question: 'Which title?',
        options: ['Dawn', 'Dusk'],
        program: { call: 'external_ask_user' },
      }),
    ])
    const before = await files(a.url, id)
    expect(Object.keys(before)).toHaveLength(1) // the write before the question, not the one after
    a.proc.kill('SIGKILL')

    const b = await start()
    expect((await call(b.url, 'POST', `/sessions/${id}/pending/${String(pending[0].id)}`, { answer: 'Dusk' })).status).toBe(202)
    expect(await waitStatus(b.url, id, ['idle', 'failed'])).toBe('idle')
    const after = await files(b.url, id)
    const [beforePath] = Object.keys(before)
    expect(after[beforePath]).toBe(before[beforePath]) // not written again
    const titlePath = Object.keys(after).find(p => p.endsWith('title.md'))!
    const title = await (await call(b.url, 'GET', `/sessions/${id}/file?path=${encodeURIComponent(titlePath)}`)).text()
    expect(title).toContain('Dusk')
    const executions = (await (await call(b.url, 'GET', `/sessions/${id}/executions`)).json()) as Array<{ status: string }>
    expect(executions.map(e => e.status)).toEqual(['completed'])
  }, 180_000)
})
