import { abortAllDurableObjects } from 'cloudflare:test'
import { exports } from 'cloudflare:workers'
import { beforeAll, expect, it } from 'vitest'
import { APPENDIX_INSTRUCTIONS } from '../../fixtures/script-appendix/task.js'
import { createSessionClient, type ObservedEvent, type SessionClient } from '../../src/client/index.js'
import type { SessionEvent } from '../../src/session/index.js'
import { completions, expectContiguous, season } from '../session/harness.js'
import { configureEdge, token } from './edge-harness.js'
import { hangingOnce } from './hanging-profile.js'

// agent-vfs/client in workerd against the Worker, while every Durable Object is reset mid-execution
// (abortAllDurableObjects: memory, timers and the run's promises gone, storage kept): the client's
// observe reconnects by itself and gets every event once, in order, to the end of the run.

const hang = hangingOnce(5)
let client: SessionClient

beforeAll(async () => {
  configureEdge({ agents: { hanging: hang.profile } })
  client = createSessionClient({
    baseUrl: 'https://edge.test',
    token: await token('ana'),
    // The Worker of this test run, reached without a network (a service binding would look the same).
    fetch: (input, init) => exports.default.fetch(new Request(input, init)),
  })
})

it('observe across a Durable Object reset mid-execution: every event once, in order, to the end of the run', async () => {
  const { id } = await client.api.createSession({ body: { profile: 'hanging' } })
  await client.upload(
    id,
    Object.entries(season()).map(([path, data]) => ({ path, data })),
  )
  await client.api.sendMessage({ params: { id }, body: { text: APPENDIX_INSTRUCTIONS } })
  const seen: SessionEvent[] = []
  const reconnects: Array<string | undefined> = []
  const observing = (async () => {
    for await (const e of client.observe(id, {
      backoff: { initialMs: 50, maxMs: 500 },
      heartbeatTimeoutMs: 3000,
      onReconnect: info => reconnects.push(info.error?.code),
    }) as AsyncIterable<Exclude<ObservedEvent, { type: 'delta' }>>) {
      seen.push(e)
      if (e.type === 'execution-end' && e.status !== 'suspended') return
    }
  })()
  for (let i = 0; i < 3000 && !hang.state.reached; i++) await new Promise(r => setTimeout(r, 10))
  expect(hang.state.reached).toBe(true)
  // Let the stream deliver what the object stored before the reset, then reset every object.
  await new Promise(r => setTimeout(r, 200))
  const resetAfter = seen.length
  await abortAllDurableObjects()
  await observing
  expect(reconnects.length).toBeGreaterThan(0)
  expect(hang.state.runs).toBe(2)
  expectContiguous(seen)
  expect(seen.length).toBeGreaterThan(resetAfter)
  expect(seen.at(-1)).toMatchObject({ type: 'execution-end', status: 'completed' })
  // No completed step twice: the run continued from its checkpoint, and the client saw it once.
  const done = completions(seen)
  expect(new Set(done).size).toBe(done.length)
  const stored = await client.api.listEvents({ params: { id }, query: { limit: 1000 } })
  expect(stored.events.slice(0, seen.length).map(e => `${e.seq}:${e.type}`)).toEqual(seen.map(e => `${e.seq}:${e.type}`))
}, 120_000)
