import { describe, expect, it } from 'vitest'
import { createRunJs } from '../../src/index.js'
import { readEvents, resumeTask, runTask, scriptedModel, type ExecutionEvent, type LanguageModel } from '../../src/agent/index.js'
import { freshRun } from '../agent/workspace.js'

/** A model that keeps listing files (one tool call per turn) and never finishes on its own. */
const lister = () => scriptedModel(() => ({ toolCalls: [{ toolName: 'ls', input: { path: '/' } }] }))
/** No no-progress stop: the budget must be what ends these runs. */
const endless = { maxIdleWindows: 1000, maxStepsPerWindow: 1000, maxRetriesPerCheckpoint: 1000 }

describe('budgets: hard stops', () => {
  it('a model-call budget ends the run interrupted with budget-exceeded at exactly the budget; raising it resumes', async () => {
    const { run } = await freshRun()
    const model = lister()
    const events: ExecutionEvent[] = []
    const r = await runTask({
      vfs: run,
      instructions: 'x',
      model,
      limits: endless,
      budget: { modelCalls: 3 },
      onEvent: e => events.push(e),
    })
    expect(r).toMatchObject({ status: 'interrupted', modelCalls: 3, error: { code: 'budget-exceeded' } })
    expect(r.error!.message).toContain('execution budget of 3 model calls')
    expect(model.calls).toBe(3)
    const stop = events.find(e => e.type === 'budget-exceeded')
    expect(stop).toMatchObject({ scope: 'execution', budget: 'modelCalls', limit: 3, used: 3 })
    expect(events.at(-1)).toMatchObject({ type: 'execution-end', status: 'interrupted', error: { code: 'budget-exceeded' } })

    // The same budget again: stopped at once, no call made.
    const again = await resumeTask({ vfs: run, model, limits: endless, budget: { modelCalls: 3 } })
    expect(again).toMatchObject({ status: 'interrupted', modelCalls: 3, error: { code: 'budget-exceeded' } })
    expect(model.calls).toBe(3)
    // Raised: it runs on, counting from the stored 3.
    const raised = await resumeTask({ vfs: run, model, limits: endless, budget: { modelCalls: 5 } })
    expect(raised).toMatchObject({ status: 'interrupted', modelCalls: 5 })
    expect(model.calls).toBe(5)
    const stored = await readEvents(run, r.executionId)
    expect(stored.filter(e => e.type === 'budget-exceeded').map(e => (e as { limit: number }).limit)).toEqual([3, 3, 5])
  })

  it('a token budget stops before the next call once reached, and caps the output tokens a call may ask for', async () => {
    const { run } = await freshRun()
    const asked: Array<number | undefined> = []
    const inner = lister()
    const model: LanguageModel = {
      specificationVersion: inner.specificationVersion,
      provider: inner.provider,
      modelId: inner.modelId,
      doGenerate: options => (asked.push(options.maxOutputTokens), inner.doGenerate(options)),
    }
    const r = await runTask({ vfs: run, instructions: 'x', model, limits: endless, budget: { tokens: 2_000 } })
    expect(r).toMatchObject({ status: 'interrupted', error: { code: 'budget-exceeded' } })
    expect(r.usage.totalTokens).toBeGreaterThanOrEqual(2_000)
    // Every call was asked to stay within what was left.
    expect(asked[0]).toBe(2_000)
    for (let i = 1; i < asked.length; i++) expect(asked[i]!).toBeLessThan(asked[i - 1]!)
  })

  it('a bytes-written budget counts what the tool calls add to the workspace', async () => {
    const { run } = await freshRun()
    let n = 0
    const model = scriptedModel(() => ({
      toolCalls: [{ toolName: 'write_file', input: { path: `/work/f${n++}.txt`, content: 'x'.repeat(400) } }],
    }))
    const r = await runTask({ vfs: run, instructions: 'x', model, limits: endless, budget: { bytesWritten: 1_000 } })
    expect(r).toMatchObject({ status: 'interrupted', error: { code: 'budget-exceeded' } })
    expect(r.error!.message).toContain('1000 bytes written')
    // Three 400-byte files reach 1,000; a fourth never starts.
    expect((await run.readdir('/work')).length).toBe(3)
  })

  it('a run_js CPU budget counts the time programs ran guest code', async () => {
    const { run } = await freshRun()
    const busy = 'const t = Date.now(); let x = 0; while (Date.now() - t < 30) x++; return x > 0'
    const model = scriptedModel(() => ({ toolCalls: [{ toolName: 'run_js', input: { code: busy } }] }))
    const events: ExecutionEvent[] = []
    const r = await runTask({
      vfs: run,
      instructions: 'x',
      model,
      limits: endless,
      runJs: view => createRunJs({ vfs: view }),
      budget: { runJsCpuMs: 50 },
      onEvent: e => events.push(e),
    })
    expect(r).toMatchObject({ status: 'interrupted', error: { code: 'budget-exceeded' } })
    const stop = events.find(e => e.type === 'budget-exceeded') as unknown as { budget: string; used: number }
    expect(stop.budget).toBe('runJsCpuMs')
    expect(stop.used).toBeGreaterThanOrEqual(50)
    // Each program's CPU time is on its result; the run stopped at the first call after they reached 50 ms.
    const cpu = events.filter(e => e.type === 'tool-result').map(e => (e as { output?: { cpuMs?: number } }).output?.cpuMs ?? 0)
    for (const ms of cpu) expect(ms).toBeGreaterThanOrEqual(25)
    const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0)
    expect(sum(cpu.slice(0, -1))).toBeLessThan(50)
    expect(sum(cpu)).toBeGreaterThanOrEqual(50)
    expect(stop.used).toBeCloseTo(sum(cpu), 0)
    expect(events.filter(e => e.type === 'tool-call').length).toBe(cpu.length)
  })

  it('a shared budget (an owner’s) adds what others spent', async () => {
    const { run } = await freshRun()
    const model = lister()
    const r = await runTask({
      vfs: run,
      instructions: 'x',
      model,
      limits: endless,
      sharedBudgets: [
        { scope: 'owner', budget: { modelCalls: 12 }, used: async () => ({ tokens: 0, modelCalls: 10, runJsCpuMs: 0, bytesWritten: 0 }) },
      ],
    })
    expect(r).toMatchObject({ status: 'interrupted', modelCalls: 2, error: { code: 'budget-exceeded' } })
    expect(r.error!.message).toContain('owner budget of 12 model calls is reached (12 used)')
  })

  it('refuses a malformed budget', async () => {
    const { run } = await freshRun()
    await expect(runTask({ vfs: run, instructions: 'x', model: lister(), budget: { tokens: -1 } })).rejects.toThrow(
      /budget.tokens must be a number/,
    )
    await expect(runTask({ vfs: run, instructions: 'x', model: lister(), budget: { dollars: 3 } as any })).rejects.toThrow(/not a budget/)
  })
})
