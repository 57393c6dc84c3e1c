import { afterAll, beforeAll, expect, it } from 'vitest'
import { scriptAppendixProfile } from '../../fixtures/script-appendix/profile.js'
import { APPENDIX_INSTRUCTIONS } from '../../fixtures/script-appendix/task.js'
import { memoryStore } from '../../src/index.js'
import { createSessionApp, createSessionHost, mintToken, type SessionHost } from '../../src/session/index.js'
import {
  applyConversationEvent,
  applyFileEvent,
  applySessionEvent,
  createSessionClient,
  currentExecution,
  emptySessionView,
  fileTree,
  folderEntries,
  type ObservedEvent,
  type SessionClient,
  type SessionView,
} from '../../src/client/index.js'
import { season } from '../session/harness.js'
import { listen } from '../session/http-client.js'

// The state helpers of agent-vfs/client fed by a real run (a real host over HTTP, the scripted model
// streaming its text): what they keep agrees with what the API lists.
const secret = 'test-secret-test-secret-test-secret-0123'
let host: SessionHost
let server: Awaited<ReturnType<typeof listen>>
let client: SessionClient

beforeAll(async () => {
  const stream = { chunkChars: 16, chunkDelayMs: 2 }
  host = createSessionHost({
    store: memoryStore(),
    agents: { asking: scriptAppendixProfile({ askFirst: true, approveRunJs: true, stream }) },
    pollMs: 20,
  })
  server = await listen(createSessionApp(host, { auth: { secret }, heartbeatMs: 200 }).fetch)
  client = createSessionClient({ baseUrl: server.url, token: await mintToken(secret, 'ana') })
})
afterAll(async () => {
  await host.stop()
  await server.close()
})

it('a SessionView kept from observe({ live: true }) agrees with the API: files, pending, executions, status, conversation', async () => {
  const { id } = await client.api.createSession({ body: { profile: 'asking' } })
  await client.upload(
    id,
    Object.entries(season()).map(([path, data]) => ({ path, data })),
  )
  await client.api.sendMessage({ params: { id }, body: { text: APPENDIX_INSTRUCTIONS } })
  let view: SessionView = emptySessionView()
  let sawLive = false
  const asked: string[] = []
  for await (const e of client.observe(id, { live: true })) {
    const before = view
    view = applySessionEvent(view, e)
    // A part an event does not concern stays the same object (a UI skips its render).
    if (e.type !== 'files-changed') expect(view.files).toBe(before.files)
    if (e.type === 'delta') sawLive ||= view.conversation.some(i => i.kind === 'text' && i.live)
    // Once the session waits, the view shows what waits, as GET …/pending lists it.
    if (e.type === 'status' && (e.status === 'waiting_input' || e.status === 'waiting_approval')) {
      const listed = await client.api.listPending({ params: { id } })
      expect([...view.pending.keys()]).toEqual(listed.map(p => p.id))
      const item = view.pending.get(listed[0]!.id)!
      asked.push(item.kind)
      expect(currentExecution(view.executions)?.status).toBe('suspended')
      await client.api.answerPending({
        params: { id, pendingId: item.pendingId },
        body: item.kind === 'question' ? { answer: 'Season One' } : { decision: 'always' },
      })
    }
    if (e.type === 'status' && e.status === 'idle' && view.executions.size > 0) break
  }
  expect(asked).toEqual(['question', 'approval'])
  expect(sawLive).toBe(true)
  expect(view.status).toBe('idle')
  expect(view.pending.size).toBe(0)
  const files = await client.api.listFiles({ params: { id } })
  expect([...view.files.values()].map(f => [f.path, f.version, f.size]).sort()).toEqual(files.map(f => [f.path, f.version, f.size]).sort())
  expect(folderEntries(view.files, '/outputs')).toContain('assets.json')
  const executions = await client.api.listExecutions({ params: { id } })
  expect([...view.executions.values()].map(e => [e.id, e.status])).toEqual(executions.map(e => [e.id, e.status]))
  expect(view.executions.get('e0001')!.resumes).toBe(2)
  // The conversation: the task, then the model's text and tool calls, each call with its result; nothing left live.
  const conversation = view.conversation
  expect(conversation[0]).toMatchObject({ kind: 'user', text: APPENDIX_INSTRUCTIONS, mode: 'task' })
  expect(conversation.some(i => i.kind === 'text' && i.live)).toBe(false)
  const tools = conversation.filter(i => i.kind === 'tool')
  expect(tools.length).toBeGreaterThan(3)
  expect(tools.every(t => t.result !== undefined)).toBe(true)
  const stored = (await client.api.listEvents({ params: { id }, query: { limit: 1000 } })).events
  expect(conversation.flatMap(i => (i.kind === 'text' ? [i.text] : []))).toEqual(stored.filter(e => e.type === 'text').map(e => e.text))
  // Replaying the stored log gives the same view: deltas are only ever a preview.
  let replayed = emptySessionView()
  for (const e of stored) replayed = applySessionEvent(replayed, e as ObservedEvent)
  expect(replayed.conversation).toEqual(view.conversation.slice(0, replayed.conversation.length))
  expect(replayed.files).toEqual(view.files)
}, 60_000)

it('a listing and a replay mix: older changes than the listing are ignored; deletes remove; deltas replayed after a reconnect do not reopen stored text', () => {
  const base = { type: 'files-changed', seq: 5, at: 0, by: { kind: 'api' } } as const
  const tree = fileTree([{ path: '/a.md', size: 3, version: 4, mimeType: 'text/markdown' }])
  const old = applyFileEvent(tree, {
    ...base,
    version: 3,
    changes: [{ path: '/a.md', op: 'changed', version: 3, size: 1, mimeType: 'text/markdown' }],
  })
  expect(old).toBe(tree)
  const gone = applyFileEvent(tree, {
    ...base,
    version: 6,
    changes: [{ path: '/a.md', op: 'deleted', version: 6, size: 0, mimeType: 'text/markdown' }],
  })
  expect([...gone.keys()]).toEqual([])
  const delta = (at: number, d: string) => ({ type: 'delta', kind: 'text', streamId: 's1', executionId: 'e0001', at, delta: d }) as const
  let c = applyConversationEvent([], delta(0, 'Hel'))
  c = applyConversationEvent(c, delta(3, 'lo'))
  expect(c).toEqual([{ kind: 'text', executionId: 'e0001', text: 'Hello', streamId: 's1', live: true }])
  c = applyConversationEvent(c, { type: 'text', text: 'Hello!', streamId: 's1', executionId: 'e0001', executionSeq: 3, seq: 9, at: 0 })
  // A reconnect sends the text so far again (at: 0): the stored turn stays.
  expect(applyConversationEvent(c, delta(0, 'Hello'))).toBe(c)
  expect(c).toEqual([{ kind: 'text', executionId: 'e0001', text: 'Hello!', streamId: 's1', live: false }])
})
