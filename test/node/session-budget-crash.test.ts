import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { APPENDIX_INSTRUCTIONS } from '../../fixtures/script-appendix/task.js'
import { mintToken } from '../../src/session/index.js'
import { season } from '../session/harness.js'
import { listeningUrl } from '../session/listening.js'
import { SOURCE_NODE_ARGS } from '../../scripts/from-source.js'

// `scripts/serve.ts` on PGlite (from the sources, as `npm run serve` runs it) with an execution
// budget; the server is killed with SIGKILL mid-run and a new one on the same data folder resumes it.
const secret = 'budget-crash-secret-budget-crash-secret-01'
const data = mkdtempSync(join(tmpdir(), 'agent-vfs-budget-crash-'))
const procs: ChildProcess[] = []
afterAll(() => {
  for (const p of procs) p.kill('SIGKILL')
  rmSync(data, { recursive: true, force: true })
})

async function start(): Promise<string> {
  const proc = spawn(process.execPath, [...SOURCE_NODE_ARGS, 'scripts/serve.ts'], {
    env: {
      ...process.env,
      DATABASE_URL: '',
      AGENT_VFS_DATA: data,
      AGENT_VFS_JWT_SECRET: secret,
      PORT: '0',
      LEASE_MS: '1500',
      MODEL_DELAY_MS: '150',
      AGENT_VFS_EXECUTION_BUDGET: '{"modelCalls":5}',
      AGENT_VFS_RUN_JS_THREADS: '0',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  procs.push(proc)
  return listeningUrl(proc, 90_000)
}

describe('budgets across a crash (kill -9 of the Node host on PGlite)', () => {
  it('the resumed run counts on from what was stored: the budget is reached exactly, never exceeded by replay', async () => {
    const token = await mintToken(secret, 'budget-owner')
    const call = (base: string, method: string, path: string, body?: unknown) =>
      fetch(base + path, {
        method,
        headers: {
          authorization: `Bearer ${token}`,
          ...(body && !(body instanceof FormData) ? { 'content-type': 'application/json' } : {}),
        },
        ...(body ? { body: body instanceof FormData ? body : JSON.stringify(body) } : {}),
      })
    const events = async (base: string, id: string): Promise<any[]> =>
      ((await (await call(base, 'GET', `/sessions/${id}/events?limit=1000`)).json()) as { events: unknown[] }).events

    const a = await start()
    const id = ((await (await call(a, 'POST', '/sessions', { profile: 'appendix' })).json()) as { id: string }).id
    const form = new FormData()
    for (const [p, text] of Object.entries(season())) form.append('file', new Blob([text]), p)
    expect((await call(a, 'POST', `/sessions/${id}/files`, form)).status).toBe(201)
    expect((await call(a, 'POST', `/sessions/${id}/messages`, { text: APPENDIX_INSTRUCTIONS })).status).toBe(202)
    // Two model calls done (durable: with a budget every call is stored as it starts and ends), then kill -9.
    for (;;) {
      const seen = await events(a, id)
      if (seen.filter(e => e.type === 'model-call').length >= 2) break
      if (seen.some(e => e.type === 'execution-end')) throw new Error(`the run ended before the kill: ${JSON.stringify(seen.at(-1))}`)
      await new Promise(r => setTimeout(r, 25))
    }
    const exited = new Promise(r => procs[0].once('exit', r))
    procs[0].kill('SIGKILL')
    await exited

    const b = await start()
    let record: { status: string; modelCalls: number; modelCallsStarted: number; error?: { code: string; message: string } } | undefined
    for (const started = Date.now(); Date.now() - started < 120_000;) {
      const list = (await (await call(b, 'GET', `/sessions/${id}/executions`)).json()) as Array<typeof record>
      record = list[0]
      if (record && record.status !== 'running') break
      await new Promise(r => setTimeout(r, 100))
    }
    expect(record).toMatchObject({ status: 'interrupted', modelCallsStarted: 5, error: { code: 'budget-exceeded' } })
    // Answered calls: the one in flight at the kill (if any) never answered.
    expect(record!.modelCalls).toBeGreaterThanOrEqual(4)
    expect(record!.modelCalls).toBeLessThanOrEqual(5)
    const log = await events(b, id)
    const calls = log.filter(e => e.type === 'model-call').map(e => e.call as number)
    // Every call number once (the resumed run did not count any call again) and none past the budget.
    expect(new Set(calls).size).toBe(calls.length)
    expect(Math.max(...calls)).toBeLessThanOrEqual(5)
    // At most the call in flight at the kill has no event; the run was resumed (a second execution-start).
    expect(calls.length).toBeGreaterThanOrEqual(4)
    expect(log.filter(e => e.type === 'execution-start').map(e => e.resumed)).toEqual([false, true])
    expect(log.filter(e => e.type === 'budget-exceeded')).toHaveLength(1)
    const usage = (await (await call(b, 'GET', `/sessions/${id}/usage`)).json()) as { total: { modelCalls: number } }
    expect(usage.total.modelCalls).toBe(5)
  }, 240_000)
})
