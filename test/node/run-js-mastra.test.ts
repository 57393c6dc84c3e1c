import { Agent } from '@mastra/core/agent'
import { createCodeMode, createTool, sanitizeToolId as mastraSanitize } from '@mastra/core/tools'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { memoryStore, openVfs, sanitizeToolId, scopeRun } from '../../src/index.js'
import { QuickJsCodeModeTransport, runJsTool } from '../../src/mastra/index.js'

/** What `tool.execute` needs outside an agent (the tool wraps its run in an observability span). */
const toolContext = { observe: { span: (_name: string, fn: () => unknown) => fn(), log() {} } } as never

/**
 * A scripted offline model (AI SDK LanguageModelV2): the first call asks for one tool call, every
 * later call answers with text quoting the last tool result it saw.
 */
function scriptedModel(toolName: string, input: unknown) {
  const prompts: unknown[] = []
  return {
    prompts,
    model: {
      specificationVersion: 'v2' as const,
      provider: 'scripted',
      modelId: 'scripted-1',
      supportedUrls: {},
      async doGenerate(options: { prompt: Array<{ role: string; content: unknown }> }) {
        prompts.push(options.prompt)
        const usage = { inputTokens: 1, outputTokens: 1, totalTokens: 2 }
        const toolMessages = options.prompt.filter(m => m.role === 'tool')
        if (toolMessages.length === 0) {
          return {
            content: [{ type: 'tool-call', toolCallId: 'call_1', toolName, input: JSON.stringify(input) }],
            finishReason: 'tool-calls',
            usage,
            warnings: [],
          }
        }
        const last = toolMessages.at(-1)!.content as Array<{ output: unknown }>
        return {
          content: [{ type: 'text', text: `tool said ${JSON.stringify(last[0].output)}` }],
          finishReason: 'stop',
          usage,
          warnings: [],
        }
      },
      async doStream() {
        throw new Error('not used')
      },
    },
  }
}

const add = createTool({
  id: 'math-add',
  description: 'adds',
  inputSchema: z.object({ a: z.number(), b: z.number() }),
  execute: async ({ a, b }) => a + b,
})

describe('QuickJsCodeModeTransport', () => {
  it('names tools exactly as Mastra does', () => {
    for (const id of ['math-add', 'get.user', '1abc', 'ok_$x', 'a b/c', 'ünï']) expect(sanitizeToolId(id)).toBe(mastraSanitize(id))
  })

  it('runs createCodeMode end to end without a sandbox, TypeScript included', async () => {
    const transport = new QuickJsCodeModeTransport()
    expect(transport.requiresSandbox).toBe(false)
    const { tool, instructions } = createCodeMode({ tools: { add } }, transport)
    expect(instructions).toContain('external_math_add')
    const r = await tool.execute!(
      { code: `const s: number = await external_math_add({ a: 1, b: 2 }); console.log('sum', s); return s * 200` },
      toolContext,
    )
    expect(r).toEqual({ success: true, result: 600, logs: ['sum 3'] })
  })

  it('enforces the allow-list, keeps error names and calls hooks that may throw', async () => {
    const dispatched: Array<[string, unknown]> = []
    const calls: unknown[] = []
    const results: unknown[] = []
    class CustomError extends Error {
      override name = 'CustomError'
    }
    const r = await new QuickJsCodeModeTransport().run({
      program: `
        const out = [typeof external_secret, await external_lookup({ id: 'x' })]
        try { await external_broken({}) } catch (e) { out.push(e.name + ': ' + e.message) }
        return out`,
      toolIds: ['lookup', 'broken'],
      dispatch: async (tool, args) => {
        dispatched.push([tool, args])
        if (tool === 'broken') throw new CustomError('nope')
        return { found: (args as { id: string }).id }
      },
      timeout: 5000,
      onExternalCall: (tool, args) => {
        calls.push([tool, args])
        throw new Error('tracer down')
      },
      onExternalResult: (tool, ms, error) => {
        results.push([tool, typeof ms, (error as Error | undefined)?.name])
        throw new Error('tracer down')
      },
    })
    expect(r).toEqual({ success: true, logs: [], result: ['undefined', { found: 'x' }, 'CustomError: nope'] })
    expect(dispatched).toEqual([
      ['lookup', { id: 'x' }],
      ['broken', {}],
    ])
    expect(calls).toEqual([
      ['lookup', { id: 'x' }],
      ['broken', {}],
    ])
    expect(results).toEqual([
      ['lookup', 'number', undefined],
      ['broken', 'number', 'CustomError'],
    ])
  })

  it('times out, aborts, and never dispatches after a pre-abort', async () => {
    const transport = new QuickJsCodeModeTransport()
    let dispatched = 0
    const dispatch = async () => (dispatched++, new Promise(() => {}))
    const hang = await transport.run({ program: `await external_t({})`, toolIds: ['t'], dispatch, timeout: 200 })
    expect(hang.error?.name).toBe('TimeoutError')
    const loop = await transport.run({ program: `while (true) {}`, toolIds: [], dispatch, timeout: 200 })
    expect(loop.error?.name).toBe('TimeoutError')
    const ac = new AbortController()
    ac.abort()
    dispatched = 0
    const pre = await transport.run({
      program: `await external_t({})`,
      toolIds: ['t'],
      dispatch,
      timeout: 5000,
      abortSignal: ac.signal,
    })
    expect(pre.error?.name).toBe('AbortError')
    expect(dispatched).toBe(0)
  })

  it('drives a Mastra Agent with a scripted offline model through Code Mode', async () => {
    const { tool } = createCodeMode({ tools: { add } }, new QuickJsCodeModeTransport())
    const scripted = scriptedModel('execute_typescript', { code: `return await external_math_add({ a: 2, b: 3 }) * 120` })
    const agent = new Agent({
      id: 'coder',
      name: 'coder',
      instructions: 'use code',
      model: scripted.model as never,
      tools: { execute_typescript: tool },
    })
    const out = await agent.generate('add 2 and 3, times 120')
    expect(out.text).toBe('tool said {"type":"json","value":{"success":true,"result":600,"logs":[]}}')
    expect(scripted.prompts).toHaveLength(2)
  })
})

describe('runJsTool', () => {
  it('is a Mastra tool over a run scope, archiving into the run state', async () => {
    const vfs = await openVfs({ store: memoryStore(), namespace: 'mastra', scope: 's1' })
    const run = scopeRun(vfs, { runId: 'r1' })
    await run.seed('/context/data.json', JSON.stringify([3, 4, 5]))
    const tool = runJsTool(run)
    expect(tool.id).toBe('run_js')
    const r = await tool.execute!(
      {
        code: `const xs = JSON.parse(await vfs.read('/context/data.json')); await vfs.write('/outputs/sum.txt', String(xs.reduce((a, b) => a + b))); return xs.length`,
      },
      toolContext,
    )
    expect(r).toMatchObject({ success: true, result: 3, scriptPath: '/state/.run_js/run-001.js' })
    expect(await vfs.readFile('/runs/r1/outputs/sum.txt', 'utf8')).toBe('12')
  })

  it('works as an agent tool', async () => {
    const vfs = await openVfs({ store: memoryStore(), namespace: 'mastra', scope: 's2' })
    await vfs.writeFile('/notes/a.md', 'alpha\nbeta\nalpha\n')
    const scripted = scriptedModel('run_js', { code: `return (await vfs.grep('alpha', { paths: ['/notes'] })).matches.length` })
    const agent = new Agent({
      id: 'files',
      name: 'files',
      instructions: 'use run_js',
      model: scripted.model as never,
      tools: { run_js: runJsTool(vfs) },
    })
    const out = await agent.generate('count alphas')
    expect(out.text).toContain('"success":true')
    expect(out.text).toContain('"result":2')
  })
})
