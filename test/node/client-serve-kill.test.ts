import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { expect, it } from 'vitest'
import { APPENDIX_INSTRUCTIONS } from '../../fixtures/script-appendix/task.js'
import { createSessionClient, type ObservedEvent, type SessionEvent } from '../../src/client/index.js'
import { expectContiguous, season } from '../session/harness.js'
import { serveProcess } from '../shared/serve-process.js'

// `npm run serve` killed with kill -9 in the middle of an execution and started again on the same port
// and data folder: a client observing the session gets every event once, in order, through the end of
// the execution, with no reconnect code of its own (agent-vfs/client's observe does it).
it('observe across kill -9 and a restart of npm run serve: every event once, in order, to the end of the run', async () => {
  const data = mkdtempSync(join(tmpdir(), 'agent-vfs-client-kill-'))
  // Slow model calls (MODEL_DELAY_MS) keep the run going while the server dies; a short lease lets the
  // restarted server take the session over soon.
  const env: NodeJS.ProcessEnv = { ...process.env, PORT: '0', AGENT_VFS_DATA: data, LEASE_MS: '1000', MODEL_DELAY_MS: '200' }
  delete env.DATABASE_URL
  delete env.AGENT_VFS_JWT_SECRET
  let server = serveProcess(env)
  try {
    const started = await server.ready
    expect(started, server.log()).toBeDefined()
    const { url, token } = started!
    const client = createSessionClient({ baseUrl: url, token })
    const { id } = await client.api.createSession({ body: { profile: 'appendix' } })
    await client.upload(
      id,
      Object.entries(season()).map(([path, data]) => ({ path, data })),
    )
    await client.api.sendMessage({ params: { id }, body: { text: APPENDIX_INSTRUCTIONS } })

    const events: SessionEvent[] = []
    const reconnects: Array<string | undefined> = []
    let killedAt = 0
    for await (const e of client.observe(id, {
      backoff: { initialMs: 100, maxMs: 1000 },
      heartbeatTimeoutMs: 20_000,
      onReconnect: info => reconnects.push(info.error?.code),
    }) as AsyncIterable<Exclude<ObservedEvent, { type: 'delta' }>>) {
      events.push(e)
      // Mid-execution: after the third model call, kill -9, and start a new server on the same port and folder.
      if (!killedAt && e.type === 'model-call' && e.call === 3) {
        killedAt = e.seq
        server.proc.kill('SIGKILL')
        await server.exited
        server = serveProcess({ ...env, PORT: new URL(url).port })
        expect(await server.ready, server.log()).toBeDefined()
      }
      if (e.type === 'execution-end' && e.status !== 'suspended') break
    }
    expect(killedAt).toBeGreaterThan(0)
    expect(reconnects.length).toBeGreaterThan(0)
    expect(reconnects).toContain('network')
    expectContiguous(events)
    expect(events.at(-1)).toMatchObject({ type: 'execution-end', status: 'completed' })
    // What the client saw is the log as stored, from the first event to the end of the run.
    const stored = await client.api.listEvents({ params: { id }, query: { limit: 1000 } })
    expect(stored.events.slice(0, events.length).map(e => `${e.seq}:${e.type}`)).toEqual(events.map(e => `${e.seq}:${e.type}`))
    expect(events.some(e => e.seq > killedAt && e.type === 'execution-start')).toBe(true)
  } finally {
    server.proc.kill('SIGKILL')
    await server.exited
    rmSync(data, { recursive: true, force: true })
  }
}, 240_000)
