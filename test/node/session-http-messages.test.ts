// HTTP errors say what was wrong and what is accepted (issue 17): a bad decision, an abort while
// the session waits for a person, a resume with nothing to resume, malformed tokens; and the first
// message of a session is its task, not a follow-up.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { scriptAppendixProfile } from '../../fixtures/script-appendix/profile.js'
import { memoryStore } from '../../src/index.js'
import {
  createSessionApp,
  createSessionHost,
  mintToken,
  sessionOpenApiDocument,
  sessionRoutes,
  usageRoutes,
  type SessionHost,
} from '../../src/session/index.js'
import { season, until } from '../session/harness.js'
import { heldSetup } from '../session/held-setup.js'

const secret = 'messages-secret-messages-secret-0123456'
let host: SessionHost
let app: ReturnType<typeof createSessionApp>
let token: string
// Each held profile's setup waits until its test opens it: the session has acknowledged work and nothing runs yet.
const held = heldSetup(scriptAppendixProfile())
const heldAborted = heldSetup(scriptAppendixProfile())
// A profile whose setup always fails: the execution a message asks for can never start.
const brokenProfile = {
  setup: () => {
    throw new Error('the model endpoint is not configured')
  },
}

beforeAll(async () => {
  host = createSessionHost({
    store: memoryStore(),
    agents: {
      asking: scriptAppendixProfile({ askFirst: true, approveRunJs: true }),
      held: held.profile,
      'held-aborted': heldAborted.profile,
      broken: brokenProfile,
    },
    pollMs: 20,
  })
  app = createSessionApp(host, { auth: { secret } })
  token = await mintToken(secret, 'ana')
})
afterAll(() => host.stop())

const call = async (
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = { authorization: `Bearer ${token}` },
) => {
  const res = await app.request(path, {
    method,
    headers: { ...headers, ...(body ? { 'content-type': 'application/json' } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  })
  return {
    status: res.status,
    body: (await res.json()) as { error?: { code: string; message: string } } & Record<string, unknown>,
  }
}

/** A new session of `profile` with the season uploaded. */
async function seasonSession(profile: string): Promise<string> {
  const id = (await call('POST', '/sessions', { profile })).body.id as string
  await host.writeFiles(
    id,
    Object.entries(season()).map(([path, data]) => ({ path: `/context/${path}`, data })),
  )
  return id
}

async function waitingSession(status: string): Promise<{ id: string; pendingId: string; mode: unknown }> {
  const id = (await call('POST', '/sessions', { profile: 'asking' })).body.id as string
  await host.writeFiles(
    id,
    Object.entries(season()).map(([path, data]) => ({ path: `/context/${path}`, data })),
  )
  const sent = await call('POST', `/sessions/${id}/messages`, { text: 'Write the appendix' })
  for (let i = 0; i < 2000; i++) {
    await host.settled(id)
    if ((await host.get(id)).status === status) break
    await new Promise(r => setTimeout(r, 20))
  }
  const [pending] = (await host.pending(id)) as Array<{ id: string }>
  return { id, pendingId: pending.id, mode: sent.body.mode }
}

describe('HTTP error messages', () => {
  it('the first message is the task; a bad decision lists what is accepted; abort while waiting says so; resume agrees', async () => {
    const s = await waitingSession('waiting_input')
    expect(s.mode).toBe('task')
    const bad = await call('POST', `/sessions/${s.id}/pending/${s.pendingId}`, { decision: 'maybe' })
    expect(bad.status).toBe(400)
    expect(bad.body.error!.message).toContain('{"decision":"approve"|"always"|"deny"}')
    expect(bad.body.error!.message).toContain('{"answer":"…"}')

    const abort = await call('POST', `/sessions/${s.id}/abort`)
    expect(abort.status).toBe(409)
    expect(abort.body.error!.message).toMatch(
      /waits for an answer \(GET \/sessions\/\S+\/pending\), so nothing runs to abort; answer it instead/,
    )

    const resume = await call('POST', `/sessions/${s.id}/resume`)
    expect(resume.status).toBe(409)
    expect(resume.body.error!.code).toBe('not-interrupted')
    expect(resume.body.error!.message).toBe(
      `Session ${s.id} has no interrupted execution to resume: only an execution stopped by an abort can be resumed; send a message to start a new one`,
    )
    expect(resume.body.error!.message).not.toContain('no running execution')
  }, 120_000)

  it('a missing, non-bearer or malformed token is told apart from an invalid one', async () => {
    const message = async (headers: Record<string, string>) => (await call('GET', '/sessions', undefined, headers)).body.error!.message
    expect(await message({})).toBe('no token: send Authorization: Bearer <token>')
    expect(await message({ authorization: 'Basic YW5hOnB3' })).toMatch(/^the Authorization header is not a bearer token/)
    expect(await message({ authorization: 'Bearer not-a-jwt' })).toMatch(
      /^the bearer token is malformed: a token is a JWT, three base64url parts/,
    )
    expect(await message({ authorization: `Bearer ${token.slice(0, -2)}xx` })).toBe('the token is invalid or expired')
  })
})

describe('acknowledged work shows at once (issue 28)', () => {
  it('from the 202 to a first message the session is running on e0001, in GET, in the list and in the 202 itself', async () => {
    const id = await seasonSession('held')
    const sent = await call('POST', `/sessions/${id}/messages`, { text: 'Write the appendix' })
    expect(sent.status).toBe(202)
    // The execution's setup is still held: a client polling "until idle" must not stop here.
    expect((await call('GET', `/sessions/${id}`)).body).toMatchObject({ status: 'running', executionId: 'e0001' })
    const page = (await call('GET', '/sessions?limit=100')).body as { items: Array<{ id: string; status: string }> }
    expect(page.items.find(s => s.id === id)?.status).toBe('running')
    // The message waits to be handed to its execution; the session already runs the execution it starts.
    expect(sent.body).toMatchObject({ n: 1, mode: 'task', state: 'queued', session: { status: 'running', executionId: 'e0001' } })
    held.open()
    await until(host, id, ['idle'])
    expect((await host.executions(id)).map(e => [e.id, e.status])).toEqual([['e0001', 'completed']])
    // One move to running and one back: no idle in between.
    const statuses = (await host.events(id, { after: 0 })).filter(e => e.type === 'status').map(e => (e as { status: string }).status)
    expect(statuses).toEqual(['running', 'idle'])
  }, 120_000)

  it('a start that fails before its execution begins shows idle again, its message kept as the task of e0001 (not running without end)', async () => {
    const id = await seasonSession('broken')
    expect((await call('POST', `/sessions/${id}/messages`, { text: 'Write the appendix' })).status).toBe(202)
    await until(host, id, ['idle'])
    const events = await host.events(id, { after: 0 })
    expect(events.find(e => e.type === 'error')).toMatchObject({ code: 'profile-error', message: 'the model endpoint is not configured' })
    // Handed to e0001 as its task (start-orphan in state.ts): it starts on the next message, answer or recovery.
    expect((await host.messages(id)).map(m => [m.state, m.executionId])).toEqual([['delivered', 'e0001']])
    expect(await host.executions(id)).toEqual([])
  }, 120_000)

  it('work acknowledged but not started yet can be aborted: its execution ends interrupted', async () => {
    const id = await seasonSession('held-aborted')
    expect((await call('POST', `/sessions/${id}/messages`, { text: 'Write the appendix' })).status).toBe(202)
    const abort = await call('POST', `/sessions/${id}/abort`)
    expect([abort.status, abort.body.error?.message]).toEqual([202, undefined])
    heldAborted.open()
    await until(host, id, ['idle'])
    expect((await host.executions(id)).map(e => [e.id, e.status])).toEqual([['e0001', 'interrupted']])
  }, 120_000)
})

it('/openapi.json of the Node host gives every operation a summary, the same document sessionOpenApiDocument builds', async () => {
  const doc = (await (await app.request('/openapi.json')).json()) as {
    paths: Record<string, Record<string, { summary?: string }>>
  }
  const operations = Object.values(doc.paths).flatMap(p => Object.values(p))
  expect(operations.length).toBe(Object.keys(sessionRoutes).length + Object.keys(usageRoutes).length)
  for (const op of operations) expect(op.summary).toMatch(/^[A-Z].{5,}/)
  expect(sessionOpenApiDocument().paths).toEqual(doc.paths)
})
