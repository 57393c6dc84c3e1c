import { describe, expect, it } from 'vitest'
import { createRunJs } from '../../src/index.js'
import { runTask, scriptedModel, type ExecutionEvent } from '../../src/agent/index.js'
import { generateEpisodes } from '../../fixtures/script-appendix/generator.js'
import { appendixModel, followUpModel } from '../../fixtures/script-appendix/scripted.js'
import { APPENDIX_INSTRUCTIONS, FOLLOW_UP_INSTRUCTIONS, appendixContract, seedInput } from '../../fixtures/script-appendix/task.js'
import { freshRun } from '../agent/workspace.js'

// Kill and resume of this example (three kill points) runs in test/agent/runtime-suite.ts, on every store.
describe('the script-appendix example, end to end on a memory store', () => {
  it('extracts through run_js, is rejected once for a gap, corrects it, and a follow-up reuses the work', async () => {
    const { files, truth } = generateEpisodes()
    const { run } = await freshRun()
    await seedInput(run, files)
    const events: ExecutionEvent[] = []
    const first = await runTask({
      vfs: run,
      model: scriptedModel(appendixModel()),
      instructions: APPENDIX_INSTRUCTIONS,
      contract: appendixContract,
      runJs: vfs => createRunJs({ vfs }),
      onEvent: e => events.push(e),
    })
    expect(first.status).toBe('completed')
    const rejections = events.filter(e => e.type === 'result-rejected') as Array<{ problems: string[] }>
    expect(rejections).toHaveLength(1)
    expect(rejections[0].problems).toContain('episode 60 (/context/episodes/episode-60.fountain) is not covered: no location lists it')
    expect(first.plan!.steps.map(s => [s.id, s.status])).toEqual([
      ['survey', 'completed'],
      ['extract', 'completed'],
      ['assets', 'completed'],
      ['appendix', 'completed'],
      ['fix-1', 'completed'],
    ])

    const read = async (p: string) => JSON.parse(await run.readFile(p, 'utf8'))
    const assets = await read('/outputs/assets.json')
    expect(assets).toEqual({ characters: truth.characters, locations: truth.locations, props: truth.props })
    expect(first.result).toEqual(assets)
    expect(await read('/outputs/coverage.json')).toEqual({
      episodes: 60,
      covered: Array.from({ length: 60 }, (_, i) => i + 1),
      missing: [],
    })
    const validation = await read('/outputs/validation.json')
    expect(validation.pass).toBe(true)
    expect(validation.problems.map((p: { message: string }) => p.message)).toEqual(
      truth.unknownCues.map(u => `cue ${u.cue} matches no character in characters.md (episodes ${u.episodes.join(', ')})`),
    )
    const appendix = await run.readFile('/outputs/appendix.md', 'utf8')
    expect(appendix).toMatch(/^# Production appendix\n\nEpisodes: 60, covered: 60\n/)
    expect(appendix).toContain('- **MARA VOSS** (THE STRANGER, MARA): ')

    const follow = await runTask({
      vfs: run,
      model: scriptedModel(followUpModel()),
      instructions: FOLLOW_UP_INSTRUCTIONS,
      runJs: vfs => createRunJs({ vfs }),
    })
    expect(follow.status).toBe('completed')
    expect(follow.toolCalls / first.toolCalls).toBeLessThanOrEqual(0.3)
    const index = await run.readFile('/outputs/characters-by-location.md', 'utf8')
    expect(index).toMatch(/^# Characters by location\n\n- [A-Z]/)
    expect(index.split('\n').filter(l => l.startsWith('- '))).toHaveLength(truth.locations.length)
  })
})
