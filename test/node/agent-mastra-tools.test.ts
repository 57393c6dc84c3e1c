import { Agent } from '@mastra/core/agent'
import { describe, expect, it } from 'vitest'
import { createWorkspaceTools, scriptedModel } from '../../src/agent/index.js'
import { freshRun } from '../agent/workspace.js'

describe('the workspace tools and scriptedModel in a Mastra Agent', () => {
  it('are accepted as AI-SDK style tools and a v2 model; errors reach the model with what to do next', async () => {
    const { run } = await freshRun()
    await run.seed('/context/a.md', 'alpha\n')
    const seen: unknown[] = []
    const model = scriptedModel(v => {
      seen.push(...v.last.map(r => r.value))
      if (v.call === 0) return { toolCalls: [{ toolName: 'read_file', input: { path: '/context/missing.md' } }] }
      if (v.call === 1) return { toolCalls: [{ toolName: 'read_file', input: { path: '/context/a.md' } }] }
      if (v.call === 2) return { toolCalls: [{ toolName: 'write_file', input: { path: '/work/b.md', content: 'beta' } }] }
      return { text: 'done' }
    })
    const agent = new Agent({ id: 'a', name: 'a', instructions: 'work', model, tools: createWorkspaceTools({ vfs: run }) })
    const out = await agent.generate('go', { maxSteps: 6 })
    expect(out.text).toBe('done')
    expect(await run.readFile('/work/b.md', 'utf8')).toBe('beta')
    expect(JSON.stringify(seen[0])).toMatch(/ENOENT.*Next: check the path with ls or glob/)
    expect(seen[1]).toMatch(/\/context\/a.md: lines 1-1 of 1/)
    expect(String(seen[2])).toMatch(/^Created \/work\/b.md/)
  })
})
