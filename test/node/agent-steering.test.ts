import { describe, expect, it } from 'vitest'
import { memoryStore, openVfs, scopeRun } from '../../src/index.js'
import { runTask, scriptedModel, type ScriptedView } from '../../src/agent/index.js'

describe('runner steering hook', () => {
  it('shows every steering message in each window opening after it arrives, and never before', async () => {
    const vfs = scopeRun(await openVfs({ store: memoryStore(), namespace: 'n', scope: 's' }), { runId: 'r' })
    const inbox: string[] = []
    const openings: Array<string[] | undefined> = []
    const model = scriptedModel((v: ScriptedView) => {
      if (v.results.length === 0) openings.push(v.state?.messages)
      const plan = v.state?.plan
      if (!plan)
        return {
          toolCalls: [
            {
              toolName: 'update_plan',
              input: {
                steps: [
                  { id: 'a', title: 'A', status: 'in_progress' },
                  { id: 'b', title: 'B', status: 'pending' },
                ],
              },
            },
          ],
        }
      const next = v.state!.nextStep
      if (!next) return { text: 'done' }
      if (!v.results.some(r => r.toolName === 'write_file' && r.ok))
        return { toolCalls: [{ toolName: 'write_file', input: { path: `/work/${next.id}.txt`, content: next.id } }] }
      inbox.push(`after ${next.id}`)
      return {
        toolCalls: [
          {
            toolName: 'update_plan',
            input: {
              steps: plan.steps.map(s =>
                s.id === next.id ? { ...s, status: 'completed' } : s.status === 'pending' ? { ...s, status: 'in_progress' } : s,
              ),
            },
          },
        ],
      }
    })
    const r = await runTask({ vfs, model, instructions: 'two steps', steering: async () => [...inbox] })
    expect(r.status).toBe('completed')
    // Window 1 opens before any message; window 2 after "after a"; window 3 shows both.
    expect(openings).toEqual([undefined, undefined, ['after a'], ['after a', 'after b']])
  })
})
