import { expect } from 'vitest'
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base'
import { createRunJs, memoryStore, openVfs, scopeRun, type RunJsOptions } from '../../src/index.js'
import { runTask, scriptedModel } from '../../src/agent/index.js'
import { named, parentOf } from './otel.js'

/**
 * Runs a small task (a plan, a run_js program, a failing tool call, the result) and checks its
 * spans: one `invoke_agent`, `chat` spans with usage and finish reasons, `execute_tool` spans with
 * the tool's name and call id, a `run_js` span; all within one trace, nested as execution → model
 * call / tool call → run_js (run_js only where `nestedRunJs`: it needs a context manager).
 */
export async function checkAgentSpans(
  spans: () => ReadableSpan[],
  nestedRunJs: boolean,
  runJsOptions: Omit<RunJsOptions, 'vfs'> = {},
): Promise<void> {
  const vfs = scopeRun(await openVfs({ store: memoryStore(), namespace: 't', scope: 's' }), { runId: 'r' })
  let n = 0
  const model = scriptedModel(() => {
    n++
    if (n === 1) return { toolCalls: [{ toolName: 'run_js', input: { code: "await vfs.write('/work/a.txt', 'hi'); return 1" } }] }
    if (n === 2) return { toolCalls: [{ toolName: 'read_file', input: { path: '/work/missing.txt' } }] }
    return { text: 'done' }
  })
  const r = await runTask({ vfs, instructions: 'write a file', model, runJs: view => createRunJs({ ...runJsOptions, vfs: view }) })
  expect(r.status).toBe('completed')
  const all = spans()
  const [execution] = named(all, 'invoke_agent agent-vfs')
  expect(execution).toBeDefined()
  expect(execution.attributes).toMatchObject({
    'gen_ai.operation.name': 'invoke_agent',
    'gen_ai.request.model': model.modelId,
    'agent_vfs.execution.id': r.executionId,
    'agent_vfs.execution.status': 'completed',
    'gen_ai.usage.input_tokens': r.usage.inputTokens,
  })
  const chats = named(all, 'chat ')
  expect(chats.length).toBe(3)
  for (const c of chats) {
    expect(parentOf(c)).toBe(execution.spanContext().spanId)
    expect(c.attributes['gen_ai.operation.name']).toBe('chat')
    expect(c.attributes['gen_ai.provider.name']).toBe(model.provider)
    expect(c.attributes['gen_ai.usage.input_tokens']).toBeGreaterThan(0)
    expect(c.attributes['gen_ai.usage.output_tokens']).toBeGreaterThan(0)
  }
  expect(chats.map(c => c.attributes['gen_ai.response.finish_reasons'])).toEqual([['tool-calls'], ['tool-calls'], ['stop']])
  const tools = named(all, 'execute_tool ')
  expect(tools.map(t => t.attributes['gen_ai.tool.name'])).toEqual(['run_js', 'read_file'])
  for (const t of tools) {
    expect(parentOf(t)).toBe(execution.spanContext().spanId)
    expect(t.attributes['gen_ai.operation.name']).toBe('execute_tool')
    expect(t.attributes['gen_ai.tool.call.id']).toMatch(/^call_/)
  }
  // The failed read is an error span; the program's is not.
  expect(tools[0].status.code).toBe(0)
  expect(tools[1].status.code).toBe(2)
  const [program] = named(all, 'run_js')
  expect(program.attributes['agent_vfs.run_js.success']).toBe(true)
  expect(program.attributes['agent_vfs.run_js.cpu_ms']).toBeGreaterThan(0)
  if (nestedRunJs) expect(parentOf(program)).toBe(tools[0].spanContext().spanId)
  for (const s of [...chats, ...tools]) expect(s.spanContext().traceId).toBe(execution.spanContext().traceId)
}
