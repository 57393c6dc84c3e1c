import { describe, expect, it } from 'vitest'
import { evaluateOperation, evaluatePolicy, loadSavedRules } from '../../src/agent/policy/policy.js'
import {
  listPending,
  resumeTask,
  runTask,
  scriptedModel,
  type ExecutionEvent,
  type PolicyRule,
  type ScriptedView,
} from '../../src/agent/index.js'
import { ALLOW_RUN_JS, ASK_OUTSIDE_WORK } from '../../fixtures/script-appendix/task.js'
import { killable } from '../agent/kill-switch.js'
import { freshRun, reopen } from '../agent/workspace.js'

describe('evaluatePolicy', () => {
  it('first matching rule decides; no rule allows; /state is never writable by tools', () => {
    const w = (paths: string[]) => ({ access: 'write' as const, paths })
    expect(evaluatePolicy([ASK_OUTSIDE_WORK], 'write_file', w(['/work/a.md'])).decision).toBe('allow')
    expect(evaluatePolicy([ASK_OUTSIDE_WORK], 'write_file', w(['/outputs/a.md'])).decision).toBe('ask')
    expect(evaluatePolicy([ASK_OUTSIDE_WORK], 'move', w(['/work/a.md', '/outputs/a.md'])).decision).toBe('ask')
    expect(evaluatePolicy([ASK_OUTSIDE_WORK], 'read_file', { access: 'read', paths: ['/outputs/a.md'] }).decision).toBe('allow')
    expect(evaluatePolicy([{ decision: 'deny', tools: ['delete'] }, { decision: 'allow' }], 'delete', w(['/work/x'])).decision).toBe('deny')
    expect(evaluatePolicy([{ decision: 'deny', tools: ['run_js'] }], 'run_js', { access: 'write', paths: [] }).decision).toBe('deny')
    expect(evaluatePolicy([{ decision: 'allow' }], 'write_file', w(['/state/plan.json']))).toMatchObject({
      decision: 'deny',
      reason: expect.stringMatching(/update_plan/),
    })
    expect(
      evaluatePolicy([{ decision: 'deny', paths: ['/context/**'], access: 'read' }], 'grep', {
        access: 'read',
        paths: ['/context/**/*.md'],
      }).decision,
    ).toBe('deny')
    // Plan and control tools obey only rules that name them.
    expect(evaluatePolicy([{ decision: 'ask', access: 'write' }], 'update_plan', w([]), 'plan').decision).toBe('allow')
    expect(evaluatePolicy([{ decision: 'ask', tools: ['update_plan'] }], 'update_plan', w([]), 'plan').decision).toBe('ask')
  })

  it('a call on a directory or glob above a rule path is covered by it; run_js (no named paths) may touch anything', () => {
    const r = (paths: string[]) => ({ access: 'read' as const, paths })
    const denySecret: PolicyRule = { decision: 'deny', access: 'read', paths: ['/context/secret/**'] }
    expect(evaluatePolicy([denySecret], 'grep', r(['/'])).decision).toBe('deny')
    expect(evaluatePolicy([denySecret], 'grep', r(['/context'])).decision).toBe('deny')
    expect(evaluatePolicy([denySecret], 'glob', r(['/**'])).decision).toBe('deny')
    expect(evaluatePolicy([denySecret], 'glob', r(['/context/**/*.md'])).decision).toBe('deny')
    expect(evaluatePolicy([denySecret], 'ls', r(['/'])).decision).toBe('deny')
    expect(evaluatePolicy([denySecret], 'run_js', { access: 'write', paths: [] }).decision).toBe('allow') // a read rule; run_js reports write
    expect(evaluatePolicy([{ ...denySecret, access: undefined }], 'run_js', { access: 'write', paths: [] }).decision).toBe('deny')
    // Beside or below the denied folder stays allowed.
    expect(evaluatePolicy([denySecret], 'grep', r(['/context/public'])).decision).toBe('allow')
    expect(evaluatePolicy([denySecret], 'read_file', r(['/context/a.md'])).decision).toBe('allow')
    expect(evaluatePolicy([denySecret], 'glob', r(['/work/**'])).decision).toBe('allow')
    // A tool that names no paths may touch anything: "ask outside /work" asks, unless a rule before it allows it.
    // (run_js itself is checked per file operation: see test/hostile/agent-tools.ts.)
    expect(evaluatePolicy([ASK_OUTSIDE_WORK], 'run_js', { access: 'write', paths: [] }).decision).toBe('ask')
    expect(evaluatePolicy([ASK_OUTSIDE_WORK], 'run_js', { access: 'write', paths: [], perOperation: true }).decision).toBe('allow')
    expect(evaluateOperation([ASK_OUTSIDE_WORK], 'run_js', { access: 'write', path: '/work/a.md' }).decision).toBe('allow')
    expect(evaluateOperation([ASK_OUTSIDE_WORK], 'run_js', { access: 'write', path: '/outputs/a.md' }).decision).toBe('ask')
    expect(evaluateOperation([ALLOW_RUN_JS, ASK_OUTSIDE_WORK], 'run_js', { access: 'write', path: '/outputs/a.md' }).decision).toBe('allow')
    expect(
      evaluateOperation([ALLOW_RUN_JS, { decision: 'allow' }], 'run_js', { access: 'write', path: '/state/policy.json' }).decision,
    ).toBe('deny')
    expect(evaluateOperation([denySecret], 'run_js', { access: 'read', path: '/context' }).decision).toBe('deny')
    expect(
      evaluatePolicy([{ decision: 'allow', tools: ['run_js'] }, ASK_OUTSIDE_WORK], 'run_js', { access: 'write', paths: [] }).decision,
    ).toBe('allow')
    // A narrow allow rule does not allow a broad call.
    expect(evaluatePolicy([{ decision: 'allow', paths: ['/work/**'] }, { decision: 'deny' }], 'grep', r(['/'])).decision).toBe('deny')
    expect(
      evaluatePolicy([{ decision: 'allow', paths: ['/work/**'] }, { decision: 'deny' }], 'run_js', { access: 'write', paths: [] }).decision,
    ).toBe('deny')
  })
})

/** Writes /outputs/<n>.md for each name, then answers; reports every tool result it sees. */
function writer(names: string[], seen: ScriptedView['last'][number][] = []) {
  return (v: ScriptedView) => {
    seen.push(...v.last)
    const done = v.results.filter(r => r.toolName === 'write_file').length
    if (done < names.length)
      return { toolCalls: [{ toolName: 'write_file', input: { path: `/outputs/${names[done]}.md`, content: names[done] } }] }
    return { text: 'done' }
  }
}

describe('ASK: durable pending approvals', () => {
  it('suspends, survives a restart, and resumes the same window once approved', async () => {
    const { run, store } = await freshRun()
    const events: ExecutionEvent[] = []
    const first = await runTask({
      vfs: run,
      instructions: 'write',
      model: scriptedModel(writer(['a'])),
      policy: [ASK_OUTSIDE_WORK],
      onEvent: e => events.push(e),
    })
    expect(first.status).toBe('suspended')
    expect(first.pending).toMatchObject({
      kind: 'approval',
      toolName: 'write_file',
      input: { path: '/outputs/a.md' },
      reason: 'writes outside /work need approval',
    })
    expect(events.map(e => e.type).slice(-2)).toEqual(['approval-required', 'execution-end'])
    expect(await run.exists('/outputs/a.md')).toBe(false)

    // A new process sees the pending approval and answers it.
    const again = await reopen(store)
    expect((await listPending(again)).map(p => p.id)).toEqual([first.pending!.id])
    const seen: ScriptedView['last'] = []
    const done = await resumeTask({
      vfs: again,
      model: scriptedModel(writer(['a'], seen)),
      policy: [ASK_OUTSIDE_WORK],
      answer: { decision: 'approve' },
    })
    expect(done.status).toBe('completed')
    expect(await again.readFile('/outputs/a.md', 'utf8')).toBe('a')
    expect(seen[0]).toMatchObject({ toolName: 'write_file', ok: true })
    expect(await listPending(again)).toEqual([])
  })

  it('"always" saves an allow rule in the workspace; other paths still ask', async () => {
    const { run } = await freshRun()
    const policy = [ASK_OUTSIDE_WORK]
    const r1 = await runTask({ vfs: run, instructions: 'w', model: scriptedModel(writer(['a', 'a', 'b'])), policy })
    expect(r1.status).toBe('suspended')
    const r2 = await resumeTask({
      vfs: run,
      model: scriptedModel(writer(['a', 'a', 'b'])),
      policy,
      answer: { decision: 'always' },
    })
    expect(await loadSavedRules(run)).toEqual([
      expect.objectContaining({ decision: 'allow', tools: ['write_file'], paths: ['/outputs/a.md'] }),
    ])
    // The second write of a.md passed without asking; b.md asks.
    expect(r2.status).toBe('suspended')
    expect(r2.pending?.input).toEqual({ path: '/outputs/b.md', content: 'b' })
  })

  it('saved rules are read once per run, not on every tool call', async () => {
    const { run } = await freshRun()
    const policy = [ASK_OUTSIDE_WORK]
    await runTask({ vfs: run, instructions: 'w', model: scriptedModel(writer(['a'])), policy })
    await resumeTask({ vfs: run, model: scriptedModel(writer(['a'])), policy, answer: { decision: 'always' } })
    let reads = 0
    const counting = killable(run, (m, a) => (m === 'readFile' && a[0] === '/state/policy.json' && reads++, false))
    const r = await runTask({ vfs: counting, instructions: 'w', model: scriptedModel(writer(['a', 'a', 'a'])), policy })
    expect(r.status).toBe('completed')
    expect(r.toolCalls).toBe(3)
    expect(reads).toBe(1)
  })

  it('a denial reaches the model as a tool error that says what to do', async () => {
    const { run } = await freshRun()
    await runTask({ vfs: run, instructions: 'w', model: scriptedModel(writer(['a'])), policy: [ASK_OUTSIDE_WORK] })
    const seen: ScriptedView['last'] = []
    const r = await resumeTask({
      vfs: run,
      policy: [ASK_OUTSIDE_WORK],
      answer: { decision: 'deny', message: 'not there' },
      model: scriptedModel(v => {
        seen.push(...v.last)
        return v.last[0]?.ok === false
          ? { toolCalls: [{ toolName: 'write_file', input: { path: '/work/a.md', content: 'a' } }] }
          : { text: 'ok' }
      }),
    })
    expect(String(seen[0].value)).toMatch(/The user denied write_file: not there\. Next: /)
    expect(r.status).toBe('completed')
    expect(await run.exists('/work/a.md')).toBe(true)
    expect(await run.exists('/outputs/a.md')).toBe(false)
  })

  it('a deny rule is a tool error naming the reason', async () => {
    const { run } = await freshRun()
    const seen: ScriptedView['last'] = []
    await runTask({
      vfs: run,
      instructions: 'w',
      model: scriptedModel(writer(['a'], seen)),
      policy: [{ decision: 'deny', paths: ['/outputs/**'], reason: 'outputs are frozen' }],
      limits: { maxIdleWindows: 1, maxStepsPerWindow: 2 },
    })
    expect(String(seen[0].value)).toMatch(/does not allow write_file on \/outputs\/a.md: outputs are frozen\. Next: /)
  })

  it('resuming without an answer keeps waiting', async () => {
    const { run } = await freshRun()
    await runTask({ vfs: run, instructions: 'w', model: scriptedModel(writer(['a'])), policy: [ASK_OUTSIDE_WORK] })
    const r = await resumeTask({ vfs: run, model: scriptedModel(writer(['a'])), policy: [ASK_OUTSIDE_WORK] })
    expect(r.status).toBe('suspended')
    await expect(resumeTask({ vfs: run, model: scriptedModel(writer(['a'])), answer: { answer: 'text' } })).rejects.toMatchObject({
      code: 'invalid-answer',
    })
  })
})

describe('ask_user', () => {
  it('suspends with a durable question and resumes with the answer as the tool result', async () => {
    const { run, store } = await freshRun()
    const model = () =>
      scriptedModel(v => {
        const answer = v.last.find(r => r.toolName === 'ask_user')
        if (answer)
          return {
            toolCalls: [
              {
                toolName: 'write_file',
                input: { path: '/outputs/choice.md', content: (answer.value as { answer: string }).answer },
              },
            ],
          }
        if (v.last.some(r => r.toolName === 'write_file')) return { text: 'written' }
        return { toolCalls: [{ toolName: 'ask_user', input: { question: 'Which colour?', options: ['red', 'blue'] } }] }
      })
    const events: ExecutionEvent[] = []
    const r = await runTask({ vfs: run, instructions: 'ask', model: model(), onEvent: e => events.push(e) })
    expect(r.status).toBe('suspended')
    expect(events.find(e => e.type === 'question')).toMatchObject({ question: 'Which colour?', options: ['red', 'blue'] })
    const again = await reopen(store)
    const done = await resumeTask({ vfs: again, model: model(), answer: { answer: 'blue' } })
    expect(done.status).toBe('completed')
    expect(await again.readFile('/outputs/choice.md', 'utf8')).toBe('blue')
  })

  it('keeps the work done before the question: the step can be completed after the resume', async () => {
    const { run, store } = await freshRun()
    const plan = (status: 'in_progress' | 'completed') => ({
      toolName: 'update_plan',
      input: { steps: [{ id: 'write', title: 'Write', status }] },
    })
    const script = (v: ScriptedView) => {
      const last = v.last.at(-1)
      const step = v.state?.plan?.steps[0]
      if (!step) return { toolCalls: [plan('in_progress')] }
      if (step.status === 'completed') return { text: 'done' }
      if (v.results.length === 0) return { toolCalls: [{ toolName: 'write_file', input: { path: '/work/a.md', content: 'a' } }] }
      if (last?.toolName === 'write_file') return { toolCalls: [{ toolName: 'ask_user', input: { question: 'Done?' } }] }
      return { toolCalls: [plan('completed')] }
    }
    const r = await runTask({ vfs: run, instructions: 'write then ask', model: scriptedModel(script) })
    expect(r.status).toBe('suspended')
    const again = await reopen(store)
    const events: ExecutionEvent[] = []
    const done = await resumeTask({
      vfs: again,
      answer: { answer: 'yes' },
      model: scriptedModel(script),
      onEvent: e => events.push(e),
    })
    const planResults = events.filter(e => e.type === 'tool-result' && e.toolName === 'update_plan')
    expect(planResults).toEqual([expect.objectContaining({ ok: true })])
    expect(done.status).toBe('completed')
    expect(done.plan!.steps).toEqual([expect.objectContaining({ id: 'write', status: 'completed' })])
  })
})
