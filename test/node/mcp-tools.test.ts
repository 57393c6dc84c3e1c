import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createRunJs, memoryStore } from '../../src/index.js'
import {
  resumeTask,
  runTask,
  scriptedModel,
  toolSpecs,
  type ExecutionEvent,
  type PolicyRule,
  type ScriptedView,
} from '../../src/agent/index.js'
import { connectMcpTools, runJsTools, withMcpServers, type McpServerConfig, type McpTools } from '../../src/mcp/index.js'
import { createSessionHost } from '../../src/session/index.js'
import { freshRun } from '../agent/workspace.js'
import { startDocsServer } from '../mcp/docs-server.js'
import { expectRemoteArgumentsValidated } from '../mcp/remote-validation.js'

let docs: Awaited<ReturnType<typeof startDocsServer>>
let mcp: McpTools
const headers = { authorization: 'Bearer docs-secret' }
const server = (more: Partial<McpServerConfig> = {}): McpServerConfig => ({
  name: 'docs',
  url: docs.url,
  headers,
  allow: ['search', 'stats', 'boom', 'huge', 'slow'],
  ...more,
})

beforeAll(async () => {
  docs = await startDocsServer()
  mcp = await connectMcpTools({ servers: [server({ timeoutMs: 1500, maxResultChars: 100_000 })] })
})
afterAll(async () => {
  await mcp?.close()
  await docs?.close()
})

describe('connectMcpTools', () => {
  it("gives the allowed tools only, as mcp_<server>_<tool>, with the server's own input schema for the model", () => {
    expect(Object.keys(mcp.tools).sort()).toEqual(['mcp_docs_boom', 'mcp_docs_huge', 'mcp_docs_search', 'mcp_docs_slow', 'mcp_docs_stats'])
    const search = toolSpecs(mcp.tools).find(s => s.name === 'mcp_docs_search')!
    expect(search.description).toMatch(/Search the docs/)
    expect(search.inputSchema).toMatchObject({ type: 'object', properties: { q: { type: 'string' } }, required: ['q'] })
  })

  it('fails before the agent starts, naming what is wrong: a tool the server lacks, a bad header, no server, a bad config', async () => {
    await expect(connectMcpTools({ servers: [server({ allow: ['search', 'nope'] })] })).rejects.toThrow(
      /has no tool "nope"; it has: .*search/,
    )
    await expect(connectMcpTools({ servers: [server({ headers: { authorization: 'Bearer wrong' } })] })).rejects.toThrow(
      /MCP server docs .* could not be reached/,
    )
    await expect(connectMcpTools({ servers: [server({ url: 'http://127.0.0.1:1/mcp' })], connectTimeoutMs: 2000 })).rejects.toThrow(
      /could not be reached/,
    )
    await expect(connectMcpTools({ servers: [server({ name: 'bad name' })] })).rejects.toThrow(/name is 1-24 letters/)
    await expect(connectMcpTools({ servers: [server({ allow: [] })] })).rejects.toThrow(/allow lists the tools/)
    await expect(connectMcpTools({ servers: [server({ url: 'file:///etc/passwd' })] })).rejects.toThrow(/must be http/)
  })

  it('calls: text and structured results; a tool error, a result too large and a timeout are clear tool errors', async () => {
    expect(await mcp.tools.mcp_docs_search.execute({ q: 'leases' })).toBe('found 2 pages about leases')
    expect(await mcp.tools.mcp_docs_stats.execute({})).toEqual({ pages: 3 })
    await expect(mcp.tools.mcp_docs_boom.execute({})).rejects.toMatchObject({
      code: 'failed',
      message: expect.stringMatching(/docs.boom failed: the index is offline/),
    })
    await expect(mcp.tools.mcp_docs_huge.execute({})).rejects.toMatchObject({
      code: 'too-large',
      message: expect.stringMatching(/300000 characters/),
    })
    const started = Date.now()
    await expect(mcp.tools.mcp_docs_slow.execute({ ms: 20_000 })).rejects.toMatchObject({
      code: 'timeout',
      message: expect.stringMatching(/1500 ms/),
    })
    expect(Date.now() - started).toBeLessThan(15_000)
    // Checked against the published schema before it leaves (the server never sees it).
    await expect(mcp.tools.mcp_docs_search.execute({ q: 1 })).rejects.toMatchObject({ code: 'invalid-input' })
  })

  it("checks arguments against the server's published schema before sending: what does not fit never reaches it", async () => {
    await expectRemoteArgumentsValidated()
  })

  it("the run's signal ends a call at once", async () => {
    const stop = new AbortController()
    const call = mcp.tools.mcp_docs_slow.execute({ ms: 20_000 }, { abortSignal: stop.signal })
    setTimeout(() => stop.abort(), 100)
    await expect(call).rejects.toMatchObject({ code: 'timeout', message: expect.stringMatching(/run ended/) })
  })
})

/** Calls `toolName` once, then finishes with the result it saw. */
function caller(toolName: string, input: unknown, seen: ScriptedView['last'] = []) {
  return (v: ScriptedView) => {
    seen.push(...v.last)
    if (!v.results.some(r => r.toolName === toolName)) return { toolCalls: [{ toolName, input }] }
    return { text: 'done' }
  }
}

describe('MCP tools in runTask, under the policy', () => {
  it('allowed: the model calls the remote tool and reads its result', async () => {
    const { run } = await freshRun()
    const seen: ScriptedView['last'] = []
    const r = await runTask({
      vfs: run,
      instructions: 'look it up',
      model: scriptedModel(caller('mcp_docs_search', { q: 'plans' }, seen)),
      tools: mcp.tools,
    })
    expect(r.status).toBe('completed')
    expect(seen[0]).toMatchObject({ toolName: 'mcp_docs_search', ok: true, value: 'found 2 pages about plans' })
  })

  it('deny: the call never reaches the server; ask: a durable approval, and the call runs once approved', async () => {
    const before = docs.calls.length
    const { run } = await freshRun()
    const deny: PolicyRule[] = [{ decision: 'deny', tools: ['mcp_docs_search'], reason: 'no docs today' }]
    const seen: ScriptedView['last'] = []
    await runTask({
      vfs: run,
      instructions: 'x',
      model: scriptedModel(caller('mcp_docs_search', { q: 'a' }, seen)),
      tools: mcp.tools,
      policy: deny,
    })
    expect(seen[0]).toMatchObject({ ok: false, value: expect.stringMatching(/no docs today/) })
    expect(docs.calls.length).toBe(before)

    const ask: PolicyRule[] = [{ decision: 'ask', tools: ['mcp_docs_search'], reason: 'a person approves look-ups' }]
    const events: ExecutionEvent[] = []
    const { run: run2 } = await freshRun('r2')
    const first = await runTask({
      vfs: run2,
      instructions: 'x',
      model: scriptedModel(caller('mcp_docs_search', { q: 'b' })),
      tools: mcp.tools,
      policy: ask,
      onEvent: e => events.push(e),
    })
    expect(first.status).toBe('suspended')
    expect(first.pending).toMatchObject({ kind: 'approval', toolName: 'mcp_docs_search', reason: 'a person approves look-ups' })
    expect(docs.calls.length).toBe(before)
    const seen2: ScriptedView['last'] = []
    const done = await resumeTask({
      vfs: run2,
      model: scriptedModel(caller('mcp_docs_search', { q: 'b' }, seen2)),
      tools: mcp.tools,
      policy: ask,
      answer: { decision: 'approve' },
    })
    expect(done.status).toBe('completed')
    expect(docs.calls.slice(before)).toEqual(['search:b'])
  })
})

describe('MCP tools from run_js (the same bridge as other tools)', () => {
  it('a program calls external_mcp_docs_search; deny and ask rules hold there too', async () => {
    const { run } = await freshRun()
    const rules: PolicyRule[] = [
      { decision: 'deny', tools: ['mcp_docs_boom'] },
      { decision: 'ask', tools: ['mcp_docs_stats'] },
    ]
    const runJs = createRunJs({ vfs: run, tools: runJsTools(mcp.tools, () => rules) })
    const ok = await runJs.run("return await external_mcp_docs_search({ q: 'quotas' })")
    expect(ok).toMatchObject({ success: true, result: 'found 2 pages about quotas' })
    const denied = await runJs.run('return await external_mcp_docs_boom({})')
    expect(denied).toMatchObject({
      success: false,
      error: { message: expect.stringMatching(/policy does not let run_js call mcp_docs_boom/) },
    })
    const asked = await runJs.run('return await external_mcp_docs_stats({})')
    expect(asked).toMatchObject({ success: false, error: { message: expect.stringMatching(/approval.*call mcp_docs_stats as a tool/) } })
  })

  it("the run's deadline ends a slow remote call, and the server hears of it", async () => {
    const { run } = await freshRun()
    const slow = await connectMcpTools({ servers: [server({ allow: ['slow'], timeoutMs: 60_000 })] })
    try {
      const runJs = createRunJs({ vfs: run, tools: runJsTools(slow.tools), limits: { timeMs: 800 } })
      const started = Date.now()
      const r = await runJs.run('return await external_mcp_docs_slow({ ms: 30000 })')
      expect(r.success).toBe(false)
      expect(Date.now() - started).toBeLessThan(20_000)
      for (let i = 0; i < 100 && !docs.aborted.includes('slow'); i++) await new Promise(res => setTimeout(res, 50))
      expect(docs.aborted).toContain('slow')
    } finally {
      await slow.close()
    }
  })
})

describe('a session profile that names MCP servers', () => {
  it('the execution calls the allowed remote tool after a person approves it; the servers are read per execution (owner headers)', async () => {
    const owners: string[] = []
    const profile = withMcpServers(
      {
        setup: () => ({
          model: scriptedModel(caller('mcp_docs_search', { q: 'sessions' })),
          policy: [{ decision: 'ask', tools: ['mcp_docs_search'], reason: 'look-ups need a yes' }],
        }),
      },
      execution => {
        owners.push(execution.owner ?? '?')
        return [server({ allow: ['search'] })]
      },
    )
    const host = createSessionHost({ store: memoryStore(), agents: { docs: profile }, pollMs: 20 })
    try {
      const before = docs.calls.length
      const s = await host.create({ owner: 'ana', profile: 'docs' })
      await host.send(s.id, { text: 'find it' })
      let record = await host.get(s.id)
      for (let i = 0; i < 500 && record.status !== 'waiting_approval'; i++) {
        await new Promise(r => setTimeout(r, 20))
        record = await host.get(s.id)
      }
      expect(record.status).toBe('waiting_approval')
      const [pending] = await host.pending(s.id)
      expect(pending).toMatchObject({ kind: 'approval', toolName: 'mcp_docs_search' })
      expect(docs.calls.length).toBe(before)
      await host.answer(s.id, pending.id, { decision: 'approve' })
      for (let i = 0; i < 500 && (await host.get(s.id)).status !== 'idle'; i++) await new Promise(r => setTimeout(r, 20))
      await host.settled(s.id)
      expect((await host.get(s.id)).status).toBe('idle')
      expect(docs.calls.slice(before)).toEqual(['search:sessions'])
      expect(owners[0]).toBe('ana')
    } finally {
      await host.stop()
      await profile.close()
    }
  })
})
