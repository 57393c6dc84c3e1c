import { describe, expect, it } from 'vitest'
import { createRunJs, type RunVfs } from '../../src/index.js'
import { resumeTask, runTask, scriptedModel, type Plan, type ScriptedTurn, type ScriptedView } from '../../src/agent/index.js'
import { copyContract } from '../agent/copy-task.js'
import { Killed, killable } from '../agent/kill-switch.js'
import { freshRun, reopen } from '../agent/workspace.js'

const NAMES = ['a.md', 'b.md', 'c.md']

const PROGRAM = `
const names = (await vfs.list('/context')).filter((n) => n.endsWith('.md'))
for (const n of names) {
  if (await vfs.exists('/outputs/' + n)) continue
  await vfs.write('/outputs/' + n, (await vfs.read('/context/' + n)).toUpperCase())
}
console.log('copied', names.length)
return names`

/** Plans two steps: copy everything with one run_js program, then write result.json; submits. */
function bulkModel(ran: string[] = []) {
  return (v: ScriptedView): ScriptedTurn => {
    const s = v.state!
    const last = v.last[v.last.length - 1]
    if (!s.plan)
      return {
        toolCalls: [
          {
            toolName: 'update_plan',
            input: {
              steps: [
                { id: 'copy', title: 'Copy all', status: 'in_progress' },
                { id: 'result', title: 'Result', status: 'pending' },
              ],
            },
          },
        ],
      }
    const steps = s.plan.steps
    const next = s.nextStep
    if (!next) return { toolCalls: [{ toolName: 'submit_result', input: {} }] }
    const done = (): ScriptedTurn => ({
      toolCalls: [
        {
          toolName: 'update_plan',
          input: {
            steps: steps.map(x =>
              x.id === next.id ? { ...x, status: 'completed' } : x.status === 'pending' ? { ...x, status: 'in_progress' } : x,
            ),
          },
        },
      ],
    })
    if (last?.ok && (last.toolName === 'run_js' || last.toolName === 'write_file')) return done()
    if (next.id === 'copy') {
      ran.push('copy')
      return { toolCalls: [{ toolName: 'run_js', input: { code: PROGRAM } }] }
    }
    return {
      toolCalls: [{ toolName: 'write_file', input: { path: '/outputs/result.json', content: JSON.stringify({ files: NAMES }) } }],
    }
  }
}

async function seed(run: RunVfs): Promise<void> {
  for (const n of NAMES) await run.seed(`/context/${n}`, `# ${n}\n`)
}

describe('run_js in the runner', () => {
  it('plugs createRunJs in through the run_js slot; /state stays read-only for programs', async () => {
    const { run } = await freshRun()
    await seed(run)
    const r = await runTask({
      vfs: run,
      model: scriptedModel(bulkModel()),
      instructions: 'copy',
      contract: copyContract,
      runJs: vfs => createRunJs({ vfs }),
    })
    expect(r.status).toBe('completed')
    expect(await run.readFile('/outputs/c.md', 'utf8')).toBe('# C.MD\n')
    const guard = await createRunJs({ vfs: (await import('../../src/agent/tools/toolset.js')).stateReadOnly(run) }).run(
      `await vfs.write('/state/plan.json', '{}')`,
    )
    expect(guard.success).toBe(false)
    expect(guard.error?.message).toMatch(/read-only/)
  })

  it('a failing program is a tool error with the line and what to do next', async () => {
    const { run } = await freshRun()
    const seen: unknown[] = []
    await runTask({
      vfs: run,
      instructions: 'x',
      runJs: vfs => createRunJs({ vfs }),
      limits: { maxIdleWindows: 1, maxStepsPerWindow: 2 },
      model: scriptedModel(v => {
        seen.push(...v.last.map(l => l.value))
        return { toolCalls: [{ toolName: 'run_js', input: { code: 'const x = 1\nthrow new TypeError("bad " + x)' } }] }
      }),
    })
    expect(String(seen[0])).toMatch(/TypeError: bad 1 \(line 2\)\..*Next: fix the program/s)
  })

  it('killed inside run_js: resumes from the checkpoint, the step completes once, outputs complete', async () => {
    const { run, store } = await freshRun()
    await seed(run)
    const dying = killable(run, (m, a) => m === 'writeFile' && a[0] === '/outputs/b.md')
    await expect(
      runTask({
        vfs: dying,
        model: scriptedModel(bulkModel()),
        instructions: 'copy',
        contract: copyContract,
        runJs: vfs => createRunJs({ vfs }),
      }),
    ).rejects.toBeInstanceOf(Killed)
    const again = await reopen(store)
    expect(await again.exists('/outputs/a.md')).toBe(true)
    expect(await again.exists('/outputs/b.md')).toBe(false)
    const plan = JSON.parse(await again.readFile('/state/plan.json', 'utf8')) as Plan
    expect(plan.steps.map(s => s.status)).toEqual(['in_progress', 'pending'])
    const ran: string[] = []
    const r = await resumeTask({
      vfs: again,
      model: scriptedModel(bulkModel(ran)),
      contract: copyContract,
      runJs: vfs => createRunJs({ vfs }),
    })
    expect(r.status).toBe('completed')
    expect(ran).toEqual(['copy'])
    for (const n of NAMES) expect(await again.readFile(`/outputs/${n}`, 'utf8')).toBe(`# ${n.toUpperCase()}\n`)
  })
})
