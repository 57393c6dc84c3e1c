import { describe, expect, it } from 'vitest'
import { PLAN_RULES, PlanController } from '../../src/agent/state/plan.js'
import { runTask, scriptedModel, ToolError, type PlanStep } from '../../src/agent/index.js'
import { submitResultTool } from '../../src/agent/tools/submit-tool.js'
import { updatePlanTool } from '../../src/agent/tools/plan-tool.js'
import { copyContract } from '../agent/copy-task.js'
import { freshRun } from '../agent/workspace.js'

const step = (id: string, status: PlanStep['status'] = 'pending'): PlanStep => ({ id, title: `Step ${id}`, status })

async function brokenRule(p: Promise<unknown>): Promise<string> {
  const e = (await p.then(
    () => undefined,
    (x: unknown) => x,
  )) as ToolError
  expect(e).toBeInstanceOf(ToolError)
  expect(e.code).toBe('plan-rule')
  expect(e.message).toMatch(/Next: /)
  return e.detail!.rule as string
}

describe('plan rules', () => {
  it('stores each accepted update as a new revision in /state/plan.json', async () => {
    const { run } = await freshRun()
    const plan = new PlanController(run, 'e0001')
    await plan.update([step('a', 'in_progress'), step('b')])
    plan.noteWork()
    const { plan: p, completed } = await plan.update([step('a', 'completed'), step('b', 'in_progress')])
    expect(completed?.id).toBe('a')
    expect(p.revision).toBe(2)
    expect(JSON.parse(await run.readFile('/state/plan.json', 'utf8'))).toEqual(p)
    const again = new PlanController(run, 'e0001')
    expect(await again.load()).toEqual(p)
    expect(await new PlanController(run, 'e0002').load()).toBeUndefined()
  })

  it('a new step cannot start completed', async () => {
    const { run } = await freshRun()
    const plan = new PlanController(run, 'e1')
    expect(await brokenRule(plan.update([step('a', 'completed')]))).toBe('new-step-not-completed')
    await plan.update([step('a')])
    plan.noteWork()
    expect(await brokenRule(plan.update([step('a'), step('b', 'completed')]))).toBe('new-step-not-completed')
  })

  it('at most one step completes per update', async () => {
    const { run } = await freshRun()
    const plan = new PlanController(run, 'e1')
    await plan.update([step('a'), step('b')])
    plan.noteWork()
    expect(await brokenRule(plan.update([step('a', 'completed'), step('b', 'completed')]))).toBe('one-completion-per-update')
  })

  it('completing needs a non-plan tool call since the previous update', async () => {
    const { run } = await freshRun()
    const plan = new PlanController(run, 'e1')
    await plan.update([step('a', 'in_progress'), step('b')])
    expect(await brokenRule(plan.update([step('a', 'completed'), step('b')]))).toBe('work-before-completion')
    plan.noteWork()
    await plan.update([step('a', 'completed'), step('b', 'in_progress')])
    expect(await brokenRule(plan.update([step('a', 'completed'), step('b', 'completed')]))).toBe('work-before-completion')
  })

  it('completed steps stay completed and present; ids are unique; an update must change something', async () => {
    const { run } = await freshRun()
    const plan = new PlanController(run, 'e1')
    await plan.update([step('a'), step('b')])
    plan.noteWork()
    await plan.update([step('a', 'completed'), step('b')])
    expect(await brokenRule(plan.update([step('a', 'in_progress'), step('b')]))).toBe('completed-is-final')
    expect(await brokenRule(plan.update([step('b')]))).toBe('completed-is-final')
    expect(await brokenRule(plan.update([step('a', 'completed'), step('b'), step('b')]))).toBe('unique-step-ids')
    expect(await brokenRule(plan.update([step('a', 'completed'), step('b')]))).toBe('plan-must-change')
    // Pending steps may be dropped or renamed.
    await plan.update([step('a', 'completed'), { id: 'c', title: 'Other', status: 'in_progress' }])
  })

  it('update_plan reports the rule as a tool error and the next step on success', async () => {
    const { run } = await freshRun()
    const tool = updatePlanTool(new PlanController(run, 'e1'))
    expect(await tool.execute({ steps: [step('a', 'in_progress')] })).toEqual({ revision: 1, remaining: 1, next: 'a: Step a' })
    const e = (await tool.execute({ steps: [step('a', 'completed')] }).catch((x: unknown) => x)) as ToolError
    expect(e.message).toMatch(/Plan rule "work-before-completion" broken/)
  })

  it('submit_result without a plan, or with open steps, breaks plan-complete', async () => {
    const { run } = await freshRun()
    const plan = new PlanController(run, 'e1')
    const tool = submitResultTool({ vfs: run, plan, contract: copyContract, state: { attempts: 0 } })
    expect(PLAN_RULES['plan-complete']).toBeTruthy()
    expect(await brokenRule(tool.execute({ result: { files: [] } }))).toBe('plan-complete')
    await plan.update([step('a', 'in_progress')])
    const e = (await tool.execute({ result: { files: [] } }).catch((x: unknown) => x)) as ToolError
    expect(e.detail?.rule).toBe('plan-complete')
    expect(e.message).toMatch(/Plan rule "plan-complete" broken: .*The plan is not complete: "a" is in_progress/)
  })

  it('a task with a contract must plan before any other tool call', async () => {
    const { run } = await freshRun()
    const seen: string[] = []
    const r = await runTask({
      vfs: run,
      instructions: 'x',
      contract: copyContract,
      limits: { maxIdleWindows: 1 },
      model: scriptedModel(v => {
        for (const res of v.last) seen.push(String(res.value))
        return v.call === 0 ? { toolCalls: [{ toolName: 'ls', input: { path: '/work' } }] } : {}
      }),
    })
    expect(seen[0]).toMatch(/Plan rule "plan-first" broken.*Next: call update_plan/s)
    expect(r.status).toBe('failed')
    expect(r.error?.code).toBe('no-progress')
  })
})
