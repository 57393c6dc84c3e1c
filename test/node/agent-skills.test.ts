import { describe, expect, it } from 'vitest'
import { createRunJs } from '../../src/index.js'
import { runTask, scriptedModel, type ScriptedTurn, type ScriptedView } from '../../src/agent/index.js'
import { freshRun } from '../agent/workspace.js'

/** One plan step done by one run_js program, then submit: what a model does with a small task. */
function oneProgram(code: string, seen: unknown[]) {
  return (v: ScriptedView): ScriptedTurn => {
    const s = v.state!
    const last = v.last[v.last.length - 1]
    if (last?.toolName === 'run_js') seen.push(last.value)
    if (!s.plan)
      return { toolCalls: [{ toolName: 'update_plan', input: { steps: [{ id: 'go', title: 'Run it', status: 'in_progress' }] } }] }
    if (!s.nextStep) return { text: 'done' }
    if (last?.ok && last.toolName === 'run_js')
      return { toolCalls: [{ toolName: 'update_plan', input: { steps: [{ id: 'go', title: 'Run it', status: 'completed' }] } }] }
    return { toolCalls: [{ toolName: 'run_js', input: { code } }] }
  }
}

describe('skills as code through the agent', () => {
  it('a skill library written by one execution is imported by a later execution of the same session', async () => {
    const { run } = await freshRun()
    const runJs = (vfs: Parameters<typeof createRunJs>[0]['vfs']) => createRunJs({ vfs, imports: { roots: ['/work/skills'] } })
    const first: unknown[] = []
    const r1 = await runTask({
      vfs: run,
      instructions: 'write a slug skill',
      runJs,
      model: scriptedModel(
        oneProgram(
          `await vfs.write('/work/skills/slug.js', "export const slug = s => s.toLowerCase().replace(/[^a-z0-9]+/g, '-')"); return 'saved'`,
          first,
        ),
      ),
    })
    expect(r1.status, JSON.stringify([r1, first]).slice(0, 1500)).toBe('completed')
    const later: unknown[] = []
    const r2 = await runTask({
      vfs: run,
      instructions: 'use the slug skill',
      runJs,
      model: scriptedModel(
        oneProgram(
          `import { slug } from '/work/skills/slug.js'\nconst s = slug('Hello, Skills World'); await vfs.write('/outputs/slug.txt', s); return s`,
          later,
        ),
      ),
    })
    expect(r2.status).toBe('completed')
    expect(await run.readFile('/outputs/slug.txt', 'utf8')).toBe('hello-skills-world')
    expect(JSON.stringify(later)).toContain('hello-skills-world')
  }, 60_000)
})
