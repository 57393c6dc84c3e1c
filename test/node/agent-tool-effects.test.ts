/**
 * The task loop acts on what a tool declares (`effect`), not on its name: a caller's own tool that
 * declares `suspends` pauses the execution with a durable question exactly as `ask_user` does.
 */
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import {
  askUserTool,
  createWorkspaceTools,
  defineTool,
  resumeTask,
  runTask,
  scriptedModel,
  type ExecutionEvent,
  type ScriptedView,
} from '../../src/agent/index.js'
import { PlanController } from '../../src/agent/state/plan.js'
import { updatePlanTool } from '../../src/agent/tools/plan-tool.js'
import { submitResultTool } from '../../src/agent/tools/submit-tool.js'
import { freshRun, reopen } from '../agent/workspace.js'

const askEditor = defineTool({
  description: 'Ask the editor before publishing.',
  inputSchema: z.object({ question: z.string(), options: z.array(z.string()).optional() }),
  kind: 'control',
  effect: 'suspends',
  async execute() {
    throw new Error('a suspending tool is answered by a person, never run inside runTask')
  },
})

function editorScript(v: ScriptedView) {
  const answer = v.last.find(r => r.toolName === 'ask_editor')
  if (answer) {
    const content = (answer.value as { answer: string }).answer
    return { toolCalls: [{ toolName: 'write_file', input: { path: '/outputs/title.md', content } }] }
  }
  if (v.last.some(r => r.toolName === 'write_file')) return { text: 'written' }
  return { toolCalls: [{ toolName: 'ask_editor', input: { question: 'Which title?', options: ['Dawn', 'Dusk'] } }] }
}

describe('tool effects', () => {
  it('a custom tool declaring `suspends` pauses with a question and resumes with the answer as its result', async () => {
    const { run, store } = await freshRun()
    const events: ExecutionEvent[] = []
    const tools = { ask_editor: askEditor }
    const r = await runTask({
      vfs: run,
      instructions: 'title',
      model: scriptedModel(editorScript),
      tools,
      onEvent: e => events.push(e),
    })
    expect(r.status).toBe('suspended')
    expect(r.pending).toMatchObject({ kind: 'question', toolName: 'ask_editor', question: 'Which title?' })
    expect(events.find(e => e.type === 'question')).toMatchObject({ question: 'Which title?', options: ['Dawn', 'Dusk'] })
    const again = await reopen(store)
    const done = await resumeTask({ vfs: again, model: scriptedModel(editorScript), tools, answer: { answer: 'Dusk' } })
    expect(done.status).toBe('completed')
    expect(await again.readFile('/outputs/title.md', 'utf8')).toBe('Dusk')
  })

  it('the built-in control tools declare their effects; the file tools declare none', async () => {
    const { run } = await freshRun()
    const plan = new PlanController(run, 'e0001')
    expect(askUserTool().effect).toBe('suspends')
    expect(updatePlanTool(plan).effect).toBe('checkpoints')
    expect(submitResultTool({ vfs: run, plan, state: { attempts: 0 } }).effect).toBe('completes')
    const fileTools = Object.values(createWorkspaceTools({ vfs: run }))
    expect(fileTools.length).toBeGreaterThan(5)
    expect(fileTools.filter(t => t.effect !== undefined)).toEqual([])
  })
})
