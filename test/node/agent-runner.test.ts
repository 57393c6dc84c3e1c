import { describe, expect, it } from 'vitest'
import { memoryStore, type RunVfs } from '../../src/index.js'
import { readEvents, readExecution, runTask, resumeTask, scriptedModel, TaskError, type ExecutionEvent } from '../../src/agent/index.js'
import { COPY_INSTRUCTIONS, copyContract, copyModel, type Action } from '../agent/copy-task.js'
import { freshRun } from '../agent/workspace.js'

const NAMES = ['a.md', 'b.md', 'c.md']

async function seeded(): Promise<RunVfs> {
  const { run } = await freshRun()
  for (const n of NAMES) await run.seed(`/context/${n}`, `# ${n}\nhello ${n}\n`)
  return run
}

describe('runTask', () => {
  it('plans, works step by step with a checkpoint per plan update, and submits', async () => {
    const run = await seeded()
    const events: ExecutionEvent[] = []
    const r = await runTask({
      vfs: run,
      model: scriptedModel(copyModel(NAMES)),
      instructions: COPY_INSTRUCTIONS,
      contract: copyContract,
      onEvent: e => events.push(e),
    })
    expect(r.status).toBe('completed')
    expect(r.result).toEqual({ files: NAMES })
    expect(await run.readFile('/outputs/b.md', 'utf8')).toBe('# B.MD\nHELLO B.MD')
    // 1 plan + 4 completions = 5 checkpoints, each ending a window.
    expect(events.filter(e => e.type === 'checkpoint')).toHaveLength(5)
    expect(r.windows).toBe(6)
    expect(r.toolCalls).toBe(1 + 3 * 3 + 2 + 1)
    expect(r.usage.totalTokens).toBeGreaterThan(0)
    const types = events.map(e => e.type)
    expect(types[0]).toBe('execution-start')
    expect(types.slice(-2)).toEqual(['result-accepted', 'execution-end'])
    expect(new Set(types)).toEqual(
      new Set([
        'execution-start',
        'window-start',
        // one per model call, with its usage (issue 19)
        'model-call',
        'text',
        'tool-call',
        'tool-result',
        'plan-updated',
        'checkpoint',
        'result-accepted',
        'execution-end',
      ]),
    )
    // Events and the record are durable under /state, numbered in order.
    const logged = await readEvents(run, r.executionId)
    expect(logged.map(e => e.seq)).toEqual(events.map((_, i) => i + 1))
    const record = await readExecution(run, r.executionId)
    expect(record).toMatchObject({ status: 'completed', toolCalls: r.toolCalls, checkpoint: 5 })
    expect(await run.readdir(`/state/executions/${r.executionId}/checkpoints`)).toEqual([
      'r0001.json',
      'r0002.json',
      'r0003.json',
      'r0004.json',
      'r0005.json',
    ])
  })

  it('ending the run after an accepted result is one commit: record, final plan and final events together', async () => {
    const store = memoryStore()
    let commits = 0
    const commit = store.commit.bind(store)
    store.commit = (...args) => (commits++, commit(...args))
    const { run } = await freshRun('r1', store)
    for (const n of NAMES) await run.seed(`/context/${n}`, `# ${n}\nhello ${n}\n`)
    let atSubmit = -1
    const r = await runTask({
      vfs: run,
      model: scriptedModel(copyModel(NAMES)),
      instructions: COPY_INSTRUCTIONS,
      contract: copyContract,
      onEvent: e => {
        if (e.type === 'tool-call' && e.toolName === 'submit_result') atSubmit = commits
      },
    })
    expect(r.status).toBe('completed')
    expect(atSubmit).toBeGreaterThanOrEqual(0)
    expect(commits - atSubmit).toBe(1)
    const events = await readEvents(run, r.executionId)
    expect(events.slice(-2).map(e => e.type)).toEqual(['result-accepted', 'execution-end'])
    expect(await readExecution(run, r.executionId)).toMatchObject({ status: 'completed', submission: { attempts: 1 } })
    expect(JSON.parse(await run.readFile(`/state/executions/${r.executionId}/plan.json`, 'utf8'))).toEqual(r.plan)
  })

  it('gets a rejected result back as problems, adds a correction step and resubmits', async () => {
    const run = await seeded()
    const events: ExecutionEvent[] = []
    const r = await runTask({
      vfs: run,
      model: scriptedModel(copyModel(NAMES, { gap: 'b.md' })),
      instructions: COPY_INSTRUCTIONS,
      contract: copyContract,
      onEvent: e => events.push(e),
    })
    expect(r.status).toBe('completed')
    expect(r.result).toEqual({ files: NAMES })
    const rejected = events.filter(e => e.type === 'result-rejected')
    expect(rejected).toHaveLength(1)
    expect(rejected[0]).toMatchObject({ problems: ['b.md is missing from files'] })
    expect(r.plan!.steps.map(s => s.id)).toEqual(['copy-a.md', 'copy-b.md', 'copy-c.md', 'result', 'fix-1'])
  })

  it('refuses a resubmission without a new correction step', async () => {
    const run = await seeded()
    const results: Array<{ ok: boolean; value: unknown }> = []
    const base = copyModel(NAMES, { gap: 'b.md' })
    const r = await runTask({
      vfs: run,
      contract: copyContract,
      instructions: COPY_INSTRUCTIONS,
      limits: { maxIdleWindows: 2 },
      model: scriptedModel(v => {
        const last = v.last[v.last.length - 1]
        if (last?.toolName === 'submit_result') {
          results.push(last)
          if (results.length < 2) return { toolCalls: [{ toolName: 'submit_result', input: { result: { files: NAMES } } }] }
        }
        return base(v)
      }),
    })
    expect(results[1].ok).toBe(false)
    expect(String(results[1].value)).toMatch(/no correction step since.*Next: add a new step/s)
    expect(r.status).toBe('completed')
  })

  it('a follow-up starts a new execution that sees earlier files and history', async () => {
    const run = await seeded()
    const first = await runTask({
      vfs: run,
      model: scriptedModel(copyModel(NAMES)),
      instructions: COPY_INSTRUCTIONS,
      contract: copyContract,
    })
    let earlier: unknown
    const follow = await runTask({
      vfs: run,
      instructions: 'Add an index of the outputs.',
      model: scriptedModel(v => {
        const s = v.state!
        earlier ??= s.earlier
        const last = v.last[v.last.length - 1]
        if (!s.plan)
          return {
            toolCalls: [{ toolName: 'update_plan', input: { steps: [{ id: 'index', title: 'Write index', status: 'in_progress' }] } }],
          }
        if (!s.nextStep) return { text: 'Index written to /outputs/index.md.' }
        if (last?.toolName === 'write_file')
          return {
            toolCalls: [{ toolName: 'update_plan', input: { steps: [{ id: 'index', title: 'Write index', status: 'completed' }] } }],
          }
        const outputs = s.files.filter(f => f.path.startsWith('/outputs/') && f.path.endsWith('.md')).map(f => f.path)
        return { toolCalls: [{ toolName: 'write_file', input: { path: '/outputs/index.md', content: outputs.join('\n') } }] }
      }),
    })
    expect(follow.executionId).not.toBe(first.executionId)
    expect(follow.status).toBe('completed')
    expect(follow.result).toBe('Index written to /outputs/index.md.')
    expect(await run.readFile('/outputs/index.md', 'utf8')).toBe('/outputs/a.md\n/outputs/b.md\n/outputs/c.md')
    expect(earlier).toEqual([
      expect.objectContaining({
        id: first.executionId,
        instructions: COPY_INSTRUCTIONS,
        status: 'completed',
        steps: expect.arrayContaining(['[completed] result: Write result.json']),
      }),
    ])
    expect(follow.toolCalls).toBeLessThan(first.toolCalls * 0.3)
  })

  it('refuses to start while an execution waits, and to resume without the contract', async () => {
    const run = await seeded()
    const r = await runTask({
      vfs: run,
      instructions: 'ask',
      model: scriptedModel(() => ({ toolCalls: [{ toolName: 'ask_user', input: { question: 'Which?' } }] })),
      contract: copyContract,
    })
    expect(r.status).toBe('suspended')
    await expect(runTask({ vfs: run, instructions: 'other', model: scriptedModel(() => ({})) })).rejects.toMatchObject({
      code: 'execution-in-progress',
    })
    await expect(resumeTask({ vfs: run, model: scriptedModel(() => ({})) })).rejects.toBeInstanceOf(TaskError)
  })
})

export type { Action }
