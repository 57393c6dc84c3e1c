import { describe, expect, it } from 'vitest'
import { runTask, scriptedModel, toolSpecs, createWorkspaceTools, type ExecutionEvent, type ScriptedView } from '../../src/agent/index.js'
import { copyContract } from '../agent/copy-task.js'
import { freshRun } from '../agent/workspace.js'

const plan = (status: 'pending' | 'in_progress' | 'completed' = 'in_progress') => ({
  toolName: 'update_plan',
  input: { steps: [{ id: 's', title: 'S', status }] },
})

describe('bounded runs', () => {
  it('a model that never calls a tool fails as no-progress, not an endless loop', async () => {
    const { run } = await freshRun()
    const model = scriptedModel(() => ({ text: 'thinking…' }))
    const r = await runTask({ vfs: run, instructions: 'x', contract: copyContract, model })
    expect(r).toMatchObject({ status: 'failed', error: { code: 'no-progress' } })
    expect(model.calls).toBe(3)
  })

  it('busy work without a checkpoint fails after the allowed retries', async () => {
    const { run } = await freshRun()
    const model = scriptedModel(v => (v.state!.plan ? { toolCalls: [{ toolName: 'ls', input: { path: '/' } }] } : { toolCalls: [plan()] }))
    const r = await runTask({
      vfs: run,
      instructions: 'x',
      contract: copyContract,
      model,
      limits: { maxStepsPerWindow: 3, maxRetriesPerCheckpoint: 2 },
    })
    expect(r).toMatchObject({ status: 'failed', error: { code: 'checkpoint-retries' } })
    // Window 1 makes the plan; windows 2-4 (1 + 2 retries) only list.
    expect(r.windows).toBe(4)
  })

  it('a window that hits its step limit is continued from the plan', async () => {
    const { run } = await freshRun()
    const events: ExecutionEvent[] = []
    let reads = 0
    const model = scriptedModel((v: ScriptedView) => {
      const s = v.state!
      if (!s.plan) return { toolCalls: [plan()] }
      if (!s.nextStep) return { toolCalls: [{ toolName: 'submit_result', input: { result: { files: [] } } }] }
      if (reads++ < 5) return { toolCalls: [{ toolName: 'ls', input: { path: '/' } }] }
      return { toolCalls: [plan('completed')] }
    })
    const r = await runTask({
      vfs: run,
      instructions: 'x',
      contract: { schema: copyContract.schema! },
      model,
      limits: { maxStepsPerWindow: 2 },
      onEvent: e => events.push(e),
    })
    expect(r.status).toBe('completed')
    expect(events.filter(e => e.type === 'window-start').map(e => (e as { reason: string }).reason)).toEqual([
      'start',
      'checkpoint',
      'step-limit',
      'step-limit',
      'checkpoint',
    ])
  })

  it('plan updates that only rewrite notes are not progress', async () => {
    const { run } = await freshRun()
    let n = 0
    const model = scriptedModel(v =>
      v.last.some(r => r.toolName === 'ls') || !v.state!.plan
        ? {
            toolCalls: [
              {
                toolName: 'update_plan',
                input: { steps: [{ id: 's', title: 'S', status: 'in_progress', notes: `attempt ${n++}` }] },
              },
            ],
          }
        : { toolCalls: [{ toolName: 'ls', input: { path: '/' } }] },
    )
    const r = await runTask({ vfs: run, instructions: 'x', model, limits: { maxStalledCheckpoints: 3 } })
    expect(r).toMatchObject({
      status: 'failed',
      error: { code: 'no-progress', message: expect.stringMatching(/3 plan updates in a row/) },
    })
    expect(r.windows).toBe(4)
  })

  it('rejected results are bounded', async () => {
    const { run } = await freshRun()
    const { copyModel, COPY_INSTRUCTIONS } = await import('../agent/copy-task.js')
    await run.seed('/context/a.md', 'a')
    const base = copyModel(['a.md'])
    // Every result names a file that does not exist, however often it is corrected.
    const model = scriptedModel(v => {
      const turn = base(v)
      for (const c of turn.toolCalls ?? [])
        if (c.toolName === 'write_file' && (c.input as { path: string }).path === '/outputs/result.json')
          (c.input as { content: string }).content = JSON.stringify({ files: ['a.md', 'ghost.md'] })
      return turn
    })
    const r = await runTask({
      vfs: run,
      instructions: COPY_INSTRUCTIONS,
      contract: copyContract,
      model,
      limits: { maxSubmissions: 2 },
    })
    expect(r).toMatchObject({
      status: 'failed',
      error: {
        code: 'submission-limit',
        message: expect.stringMatching(/^2 results were rejected; the last: \/outputs\/ghost.md does not exist/),
      },
    })
  })

  it('the total window count is bounded', async () => {
    const { run } = await freshRun()
    let n = 0
    const model = scriptedModel(() => ({
      toolCalls: [{ toolName: 'update_plan', input: { steps: [{ id: `s${n++}`, title: 'S', status: 'pending' }] } }],
    }))
    const r = await runTask({ vfs: run, instructions: 'x', model, limits: { maxWindows: 5 } })
    expect(r).toMatchObject({ status: 'failed', error: { code: 'window-limit' }, windows: 5 })
  })

  it('the tool calls of an execution are bounded', async () => {
    const { run } = await freshRun()
    const events: ExecutionEvent[] = []
    const model = scriptedModel(() => ({ toolCalls: [{ toolName: 'ls', input: { path: '/' } }] }))
    const r = await runTask({ vfs: run, instructions: 'x', model, limits: { maxToolCalls: 3 }, onEvent: e => events.push(e) })
    expect(r).toMatchObject({ status: 'failed', error: { code: 'tool-call-limit' }, toolCalls: 4 })
    expect(events.filter(e => e.type === 'tool-result' && e.ok)).toHaveLength(3)
    expect(events.slice(-2).map(e => e.type)).toEqual(['error', 'execution-end'])
  })

  it('unknown tools and malformed input are tool errors that list what to use', async () => {
    const { run } = await freshRun()
    const seen: string[] = []
    await runTask({
      vfs: run,
      instructions: 'x',
      limits: { maxIdleWindows: 1 },
      model: scriptedModel(v => {
        seen.push(...v.last.map(r => String(r.value)))
        return v.call === 0
          ? {
              toolCalls: [
                { toolName: 'rm_rf', input: {} },
                { toolName: 'read_file', input: { path: 7 } },
              ],
            }
          : {}
      }),
    })
    expect(seen[0]).toMatch(/There is no tool "rm_rf".*Next: use one of: ls, read_file/s)
    expect(seen[1]).toMatch(/Invalid input: path: .*Next: fix these fields/s)
  })
})

describe('large tool results', () => {
  it('are written to the workspace; the model gets the path and a preview', async () => {
    const { run } = await freshRun()
    for (let i = 0; i < 50; i++) await run.writeFile(`/work/file-with-a-long-name-${i}.txt`, 'x')
    let got: { spilled?: boolean; path?: string; preview?: string; note?: string } = {}
    await runTask({
      vfs: run,
      instructions: 'x',
      limits: { resultChars: 1_000 },
      model: scriptedModel(v => {
        if (v.call === 0) return { toolCalls: [{ toolName: 'glob', input: { pattern: '/work/**' } }] }
        got = v.last[0].value as typeof got
        return { text: 'ok' }
      }),
    })
    expect(got.spilled).toBe(true)
    expect(got.path).toMatch(/^\/state\/executions\/e0001\/tool-results\/call_1\.json$/)
    expect(got.note).toMatch(/read_file/)
    expect(JSON.parse(await run.readFile(got.path!, 'utf8')).paths).toHaveLength(50)
    expect(got.preview!.length).toBeLessThanOrEqual(2_000)
  })
})

describe('model protocol', () => {
  it('tools are offered with JSON Schema inputs; the scripted model streams the same turn', async () => {
    const { run } = await freshRun()
    const specs = toolSpecs(createWorkspaceTools({ vfs: run }))
    const read = specs.find(s => s.name === 'read_file')!
    expect(read.inputSchema).toMatchObject({ type: 'object', properties: { path: { type: 'string' } }, required: ['path'] })
    const model = scriptedModel(() => ({ text: 'hi', toolCalls: [{ toolName: 'ls', input: { path: '/' } }] }))
    const { stream } = await model.doStream({ prompt: [{ role: 'user', content: [{ type: 'text', text: 'go' }] }] })
    const parts: Array<{ type: string }> = []
    const reader = stream.getReader()
    for (let r = await reader.read(); !r.done; r = await reader.read()) parts.push(r.value)
    expect(parts.map(p => p.type)).toEqual(['stream-start', 'text-start', 'text-delta', 'text-end', 'tool-call', 'finish'])
    expect(parts[4]).toMatchObject({ toolName: 'ls', input: '{"path":"/"}' })
  })
})
