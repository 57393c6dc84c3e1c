import { describe, expect, it } from 'vitest'
import { readEvents, readExecution, resumeTask, runTask, scriptedModel, type Plan } from '../../src/agent/index.js'
import { type RunVfs } from '../../src/index.js'
import { COPY_INSTRUCTIONS, copyContract, copyModel, type Action } from '../agent/copy-task.js'
import { Killed, killable, nth } from '../agent/kill-switch.js'
import { freshRun, reopen } from '../agent/workspace.js'

const NAMES = ['a.md', 'b.md', 'c.md']

async function seed(run: RunVfs): Promise<void> {
  for (const n of NAMES) await run.seed(`/context/${n}`, `# ${n}\nhello ${n}\n`)
}

async function outputs(run: RunVfs): Promise<Record<string, string>> {
  const out: Record<string, string> = {}
  for (const p of await run.glob('/outputs/**')) out[p] = await run.readFile(p, 'utf8')
  return out
}

async function reference(): Promise<{ files: Record<string, string>; result: unknown; toolCalls: number }> {
  const { run } = await freshRun()
  await seed(run)
  const r = await runTask({
    vfs: run,
    model: scriptedModel(copyModel(NAMES, { gap: 'b.md' })),
    instructions: COPY_INSTRUCTIONS,
    contract: copyContract,
  })
  return { files: await outputs(run), result: r.result, toolCalls: r.toolCalls }
}

const killPoints: Array<[string, (m: string, args: unknown[]) => boolean]> = [
  ['inside a tool (writing /outputs/b.md)', nth('writeFile', '/outputs/b.md', 1)],
  ['between the tool and the checkpoint (plan update completing b)', nth('writeFile', '/state/plan.json', 3)],
  ['between plan.json and the checkpoint record', nth('writeFile', /checkpoints\/r0003\.json$/, 1)],
  [
    'while logging the tool result of c',
    (m, a) => m === 'appendFile' && String(a[1]).includes('"tool-result"') && String(a[1]).includes('Created /outputs/c.md'),
  ],
  ['inside submit_result (reading the result)', nth('readFile', '/outputs/result.json', 1)],
  ['after the rejection, while adding the correction step', nth('writeFile', '/state/plan.json', 6)],
]

describe('resumeTask after a crash', () => {
  for (const [where, when] of killPoints) {
    it(`killed ${where}: resumes from the last checkpoint, redoes no completed step, same outputs`, async () => {
      const ref = await reference()
      const { run, store } = await freshRun()
      await seed(run)
      const before: Action[] = []
      const dying = killable(run, when)
      await expect(
        runTask({
          vfs: dying,
          model: scriptedModel(copyModel(NAMES, { gap: 'b.md', log: before })),
          instructions: COPY_INSTRUCTIONS,
          contract: copyContract,
        }),
      ).rejects.toBeInstanceOf(Killed)
      expect(dying.killed).toBe(true)

      const again = await reopen(store)
      const plan = JSON.parse(await again.readFile('/state/plan.json', 'utf8')) as Plan
      const completed = plan.steps.filter(s => s.status === 'completed').map(s => s.id)
      const after: Action[] = []
      // The model is stateless across the crash except for what the gap flag remembers: after a
      // rejection was recorded the resumed model writes the full result, as a real model would.
      const rejectedBefore = (await readEvents(again, 'e0001')).some(e => e.type === 'result-rejected')
      const r = await resumeTask({
        vfs: again,
        model: scriptedModel(copyModel(NAMES, { log: after, ...(rejectedBefore ? {} : { gap: 'b.md' }) })),
        contract: copyContract,
      })
      expect(r.status).toBe('completed')
      expect(r.result).toEqual(ref.result)
      expect(await outputs(again)).toEqual(ref.files)
      expect(after.filter(a => completed.includes(a.step))).toEqual([])
      const checkpoints = await again.readdir('/state/executions/e0001/checkpoints')
      expect(checkpoints).toEqual(Array.from({ length: checkpoints.length }, (_, i) => `r${String(i + 1).padStart(4, '0')}.json`))
      // Work before the kill plus work after it exceeds the uninterrupted run only by the unfinished step.
      const redone = after.filter(a => before.some(b => b.step === a.step && b.tool === a.tool && b.path === a.path))
      expect(new Set(redone.map(a => a.step)).size).toBeLessThanOrEqual(1)
    })
  }

  it('an aborted run ends as interrupted and resumes', async () => {
    const { run } = await freshRun()
    await seed(run)
    const controller = new AbortController()
    let calls = 0
    const r = await runTask({
      vfs: run,
      model: scriptedModel(copyModel(NAMES)),
      instructions: COPY_INSTRUCTIONS,
      contract: copyContract,
      signal: controller.signal,
      onEvent: e => {
        if (e.type === 'tool-call' && ++calls === 4) controller.abort()
      },
    })
    expect(r.status).toBe('interrupted')
    const done = await resumeTask({ vfs: run, model: scriptedModel(copyModel(NAMES)), contract: copyContract })
    expect(done.status).toBe('completed')
    expect(done.result).toEqual({ files: NAMES })
  })

  it('an abort during the checkpointing update_plan opens no new window', async () => {
    const { run } = await freshRun()
    await seed(run)
    const controller = new AbortController()
    const events: Array<{ type: string }> = []
    const r = await runTask({
      vfs: run,
      model: scriptedModel(copyModel(NAMES)),
      instructions: COPY_INSTRUCTIONS,
      contract: copyContract,
      signal: controller.signal,
      onEvent: e => {
        events.push(e)
        if (e.type === 'tool-call' && e.toolName === 'update_plan') controller.abort()
      },
    })
    expect(r.status).toBe('interrupted')
    expect(events.some(e => e.type === 'checkpoint')).toBe(true)
    expect(events.filter(e => e.type === 'window-start')).toHaveLength(1)
    expect(events.at(-1)).toMatchObject({ type: 'execution-end', status: 'interrupted' })
    expect((await readExecution(run, r.executionId))?.windows).toBe(1)
    const done = await resumeTask({ vfs: run, model: scriptedModel(copyModel(NAMES)), contract: copyContract })
    expect(done.status).toBe('completed')
  })

  it('resuming a finished execution returns it unchanged', async () => {
    const { run } = await freshRun()
    await seed(run)
    const r = await runTask({
      vfs: run,
      model: scriptedModel(copyModel(NAMES)),
      instructions: COPY_INSTRUCTIONS,
      contract: copyContract,
    })
    const again = await resumeTask({ vfs: run, model: scriptedModel(() => ({})), contract: copyContract })
    expect(again).toMatchObject({ executionId: r.executionId, status: 'completed', result: r.result, toolCalls: r.toolCalls })
  })
})
