import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { Mastra } from '@mastra/core'
import { Agent } from '@mastra/core/agent'
import { InMemoryStore } from '@mastra/core/storage'
import { createCodeMode, type CodeModeResult } from '@mastra/core/tools'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { memoryStore, openVfs } from '../../src/index.js'
import { scriptedModel, type PolicyRule } from '../../src/agent/index.js'
import {
  createSuspendableCodeMode,
  QuickJsCodeModeTransport,
  type CodeModeFetchOptions,
  type CodeModeFetchRequest,
} from '../../src/mastra/index.js'

// Code Mode programs with the network: the transport's fetch under the session host's policy (allow /
// deny / ask by origin), through a real Mastra Agent driven by a scripted model, against loopback servers.

/** A loopback server that answers its own name and the path, and remembers every request. */
async function server(name: string) {
  const seen: string[] = []
  const s: Server = createServer((req, res) => {
    seen.push(`${req.method} ${req.url}`)
    res.end(JSON.stringify({ from: name, path: req.url }))
  })
  await new Promise<void>(resolve => s.listen(0, '127.0.0.1', resolve))
  const host = `127.0.0.1:${(s.address() as AddressInfo).port}`
  return { origin: `http://${host}`, host, seen, close: () => new Promise<void>(r => (s.closeAllConnections(), s.close(() => r()))) }
}

let api: Awaited<ReturnType<typeof server>>
let fresh: Awaited<ReturnType<typeof server>>
let other: Awaited<ReturnType<typeof server>>
beforeAll(async () => {
  ;[api, fresh, other] = await Promise.all([server('api'), server('fresh'), server('other')])
})
afterAll(() => Promise.all([api.close(), fresh.close(), other.close()]))

/** Fetches the allowed API, then a host the policy asks about, then one no rule names. */
const program = () => `
  const a = JSON.parse((await external_fetch('${api.origin}/v1/a')).body)
  let unruled
  try { await external_fetch('${other.origin}/x') } catch (e) { unruled = e.name + ': ' + e.message }
  let b
  try { b = JSON.parse((await external_fetch('${fresh.origin}/new')).body).from } catch (e) { b = e.name + ': ' + e.message }
  await vfs.write('/notes/fetched.txt', a.from + ' ' + b)
  return { a: a.from, b, unruled }`

function fetchOptions(extra: Partial<CodeModeFetchOptions> = {}): CodeModeFetchOptions {
  return {
    allow: [{ prefix: `${api.origin}/v1/` }],
    allowPrivate: [api.host, fresh.host, other.host], // loopback, for this test only
    policy: [{ decision: 'ask', tools: ['fetch'], origins: [fresh.origin], reason: 'a person approves new hosts' }] satisfies PolicyRule[],
    ...extra,
  }
}

/** The model calls the Code Mode tool once, then reports what it returned (one model per conversation, shared by its hosts). */
const modelFor = () =>
  scriptedModel(view => {
    if (view.call === 0) return { toolCalls: [{ toolName: 'execute_typescript', input: { code: program() } }] }
    return { text: `done: ${JSON.stringify(view.last[0]?.value)}` }
  })

function agentWith(built: CodeModeResult, storage = new InMemoryStore(), model = modelFor()) {
  const agent = new Agent({
    id: 'net',
    name: 'net',
    instructions: ['Use code.', built.instructions],
    model,
    tools: { [built.tool.id]: built.tool },
  })
  new Mastra({ agents: { net: agent }, storage, logger: false })
  return agent
}

describe('Mastra Code Mode through QuickJsCodeModeTransport: fetch under a policy', () => {
  it('ask with no callback: the program parks on an approval; approved, the request is sent once and nothing before it again', async () => {
    for (const s of [api, fresh, other]) s.seen.length = 0
    const vfs = await openVfs({ store: memoryStore(), namespace: 'mastra-fetch', scope: 'approve' })
    const storage = new InMemoryStore()
    const model = modelFor()
    const transport = new QuickJsCodeModeTransport({ vfs, archiveDir: false, fetch: fetchOptions() })
    const out = await agentWith(createSuspendableCodeMode({ tools: {} }, transport), storage, model).generate('Fetch.', { maxSteps: 4 })
    expect(out.finishReason).toBe('suspended')
    expect(out.suspendPayload).toMatchObject({
      toolName: 'execute_typescript',
      suspendPayload: {
        kind: 'approval',
        reason: 'a person approves new hosts',
        fetch: { url: `${fresh.origin}/new`, origin: fresh.origin, method: 'GET' },
      },
    })
    expect(api.seen).toEqual(['GET /v1/a'])
    expect(fresh.seen).toEqual([]) // not before a person said yes
    expect(other.seen).toEqual([]) // no rule names it: refused at once, never asked
    transport.close()

    // A new transport and agent (a restart): the journal is in the workspace, the suspended run in Mastra's storage.
    const again = new QuickJsCodeModeTransport({ vfs, archiveDir: false, fetch: fetchOptions() })
    const done = await agentWith(createSuspendableCodeMode({ tools: {} }, again), storage, model).resumeGenerate(
      { approved: true },
      { runId: out.runId! },
    )
    expect(done.text).toMatch(/^done: /)
    expect(done.text).toContain('"b":"fresh"')
    expect(done.text).toContain('FetchRefused')
    expect(api.seen).toEqual(['GET /v1/a']) // answered from the journal
    expect(fresh.seen).toEqual(['GET /new'])
    expect(other.seen).toEqual([])
    expect(await vfs.readFile('/notes/fetched.txt', 'utf8')).toBe('api fresh')
    again.close()
  })

  it('denied on resume: the program’s fetch throws FetchRefused and the host is never reached', async () => {
    for (const s of [api, fresh, other]) s.seen.length = 0
    const vfs = await openVfs({ store: memoryStore(), namespace: 'mastra-fetch', scope: 'deny' })
    const storage = new InMemoryStore()
    const transport = new QuickJsCodeModeTransport({ vfs, archiveDir: false, fetch: fetchOptions() })
    const agent = agentWith(createSuspendableCodeMode({ tools: {} }, transport), storage)
    const out = await agent.generate('Fetch.', { maxSteps: 4 })
    expect(out.finishReason).toBe('suspended')
    const done = await agent.resumeGenerate({ approved: false }, { runId: out.runId! })
    expect(done.text).toMatch(/"b":"FetchRefused: [^"]*GET http:\/\/127\.0\.0\.1:\d+\/new is not on this program's allow-list/)
    expect(fresh.seen).toEqual([])
    expect(api.seen).toEqual(['GET /v1/a'])
    transport.close()
  })

  it('an approval callback answers ask at once, in Mastra’s own createCodeMode; deny and unruled origins are refused without asking', async () => {
    for (const s of [api, fresh, other]) s.seen.length = 0
    const vfs = await openVfs({ store: memoryStore(), namespace: 'mastra-fetch', scope: 'callback' })
    const asked: CodeModeFetchRequest[] = []
    const transport = new QuickJsCodeModeTransport({
      vfs,
      archiveDir: false,
      fetch: fetchOptions({
        // The policy as a function: read at every request.
        policy: () => [
          { decision: 'deny', tools: ['fetch'], origins: [other.origin], reason: 'never this one' },
          { decision: 'ask', tools: ['fetch'], reason: 'a person approves new hosts' },
        ],
        ask: request => (asked.push(request), 'allow'),
      }),
    })
    const out = await agentWith(createCodeMode({ tools: {} }, transport)).generate('Fetch.', { maxSteps: 4 })
    expect(out.text).toContain('"b":"fresh"')
    expect(out.text).toMatch(/"unruled":"FetchRefused: [^"]*not on this program's allow-list/)
    expect(asked).toEqual([{ url: `${fresh.origin}/new`, origin: fresh.origin, method: 'GET', reason: 'a person approves new hosts' }])
    expect(fresh.seen).toEqual(['GET /new'])
    expect(other.seen).toEqual([])
    transport.close()
  })

  it('hostile: without a policy rule naming fetch (broad rules only), a new host is refused even with a callback that allows', async () => {
    for (const s of [api, fresh, other]) s.seen.length = 0
    const vfs = await openVfs({ store: memoryStore(), namespace: 'mastra-fetch', scope: 'broad' })
    let calls = 0
    const transport = new QuickJsCodeModeTransport({
      vfs,
      archiveDir: false,
      fetch: fetchOptions({ policy: [{ decision: 'ask', reason: 'ask about everything' }], ask: () => (calls++, 'allow') }),
    })
    const out = await agentWith(createCodeMode({ tools: {} }, transport)).generate('Fetch.', { maxSteps: 4 })
    expect(out.text).toMatch(/"b":"FetchRefused/)
    expect(calls).toBe(0)
    expect(fresh.seen).toEqual([])
    transport.close()
  })
})
