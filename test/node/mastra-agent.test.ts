import { Agent } from '@mastra/core/agent'
import { Workspace } from '@mastra/core/workspace'
import { describe, expect, it } from 'vitest'
import { generateEpisodes } from '../../fixtures/script-appendix/generator.js'
import { BUILD, extract, SURVEY } from '../../fixtures/script-appendix/programs.js'
import { memoryStore, openVfs } from '../../src/index.js'
import { scriptedModel, type ScriptedView } from '../../src/agent/index.js'
import { runJsTool, VfsFilesystem } from '../../src/mastra/index.js'

const EPISODES = 8

const byName = <T extends { name: string }>(xs: T[]) => [...xs].sort((a, b) => a.name.localeCompare(b.name))

describe('a Mastra Agent on a VfsFilesystem workspace, with its file tools and run_js', () => {
  it('reads the script-appendix episodes with Mastra tools, extracts with run_js, and the outputs match the answer key', async () => {
    const { files, truth } = generateEpisodes({ count: EPISODES, seed: 7 })
    const vfs = await openVfs({ store: memoryStore(), namespace: 'mastra-agent', scope: 'appendix' })
    for (const [rel, text] of Object.entries(files)) await vfs.writeFile(`/context/${rel}`, text)
    await vfs.writeFile(
      '/skills/fountain/SKILL.md',
      '---\nname: fountain\ndescription: Reading simplified Fountain scripts\n---\nCues are in capitals.\n',
    )

    const seen: ScriptedView[] = []
    const model = scriptedModel(view => {
      seen.push(view)
      const last = view.last.map(r => r.value)
      switch (view.call) {
        case 0:
          // Paths as a model types them: relative.
          return { toolCalls: [{ toolName: 'mastra_workspace_list_files', input: { path: 'context/episodes' } }] }
        case 1: {
          const names = [...String(last[0]).matchAll(/episode-\d+\.fountain/g)].map(m => m[0])
          return {
            toolCalls: [
              { toolName: 'mastra_workspace_read_file', input: { path: 'context/characters.md' } },
              { toolName: 'mastra_workspace_read_file', input: { path: `context/episodes/${names[0]}`, limit: 5 } },
            ],
          }
        }
        case 2:
          return { toolCalls: [{ toolName: 'run_js', input: { code: SURVEY } }] }
        case 3:
          return { toolCalls: [{ toolName: 'run_js', input: { code: extract('files') } }] }
        case 4:
          return { toolCalls: [{ toolName: 'run_js', input: { code: BUILD } }] }
        case 5:
          return {
            toolCalls: [{ toolName: 'mastra_workspace_read_file', input: { path: 'outputs/coverage.json', showLineNumbers: false } }],
          }
        case 6: {
          // A new file in a new directory through Mastra's write_file (its pre-write stat must be a FileNotFoundError).
          if (!view.last[0]?.ok) return { text: `failed: ${JSON.stringify(view.results)}` }
          const text = String(last[0])
          const coverage = JSON.parse(text.slice(text.indexOf('{')))
          return {
            toolCalls: [
              {
                toolName: 'mastra_workspace_write_file',
                input: { path: 'notes/summary.md', content: `covered ${coverage.covered.length} of ${coverage.episodes}\n` },
              },
            ],
          }
        }
        default:
          return { text: `Done: ${String(view.results[6].value).replace(/\s+/g, ' ')}` }
      }
    })

    const workspace = new Workspace({ filesystem: new VfsFilesystem({ vfs }), skills: ['/skills'] })
    const agent = new Agent({
      id: 'appendix',
      name: 'appendix',
      instructions: 'Build the production appendix from /context into /outputs.',
      model,
      workspace,
      tools: { run_js: runJsTool(vfs) },
    })
    const out = await agent.generate('Make the appendix.', { maxSteps: 10 })

    // The model was offered Mastra's workspace tools and run_js, and every call succeeded.
    expect(seen[0].toolNames).toEqual(
      expect.arrayContaining(['mastra_workspace_read_file', 'mastra_workspace_write_file', 'mastra_workspace_list_files', 'run_js']),
    )
    // Skills come from the workspace too: listed in the system prompt, with their tool.
    expect(seen[0].system).toContain('fountain')
    expect(seen[0].system).toContain('Reading simplified Fountain scripts')
    expect(seen[0].toolNames).toContain('skill')
    const results = seen.at(-1)!.results
    expect(results.map(r => r.toolName)).toEqual([
      'mastra_workspace_list_files',
      'mastra_workspace_read_file',
      'mastra_workspace_read_file',
      'run_js',
      'run_js',
      'run_js',
      'mastra_workspace_read_file',
      'mastra_workspace_write_file',
    ])
    expect(results.every(r => r.ok)).toBe(true)
    const listing = String(results[0].value)
    for (let n = 1; n <= EPISODES; n++) expect(listing).toContain(`episode-${String(n).padStart(2, '0')}.fountain`)
    expect(String(results[1].value)).toContain('MARA VOSS')
    expect(String(results[2].value)).toMatch(/# Episode 1: /)
    expect(results[3].value).toMatchObject({ success: true, result: { episodes: EPISODES } })
    expect(results[5].value).toMatchObject({ success: true, result: { missing: [], pass: true } })
    expect(String(results[7].value)).toMatch(/^Wrote \d+ bytes to notes\/summary.md/)
    expect(await vfs.readFile('/notes/summary.md', 'utf8')).toBe(`covered ${EPISODES} of ${EPISODES}\n`)
    expect(out.text).toMatch(/^Done: .*"missing": \[\]/)

    // The outputs the run_js program wrote, against the generator's independent answer key.
    const assets = JSON.parse(await vfs.readFile('/outputs/assets.json', 'utf8'))
    expect(byName(assets.characters)).toEqual(byName(truth.characters))
    expect(byName(assets.locations)).toEqual(byName(truth.locations))
    expect(byName(assets.props)).toEqual(byName(truth.props))
    const coverage = JSON.parse(await vfs.readFile('/outputs/coverage.json', 'utf8'))
    expect(coverage).toEqual({ episodes: EPISODES, covered: Array.from({ length: EPISODES }, (_, i) => i + 1), missing: [] })
    const validation = JSON.parse(await vfs.readFile('/outputs/validation.json', 'utf8'))
    expect(validation.problems.filter((p: { check: string }) => p.check === 'known-cues').length).toBe(truth.unknownCues.length)
  })
})
