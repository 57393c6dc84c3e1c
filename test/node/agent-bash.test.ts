import { mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { memoryStore } from '../../src/index.js'
import { createSessionHost } from '../../src/session/index.js'
import { runJob } from '../../fixtures/script-appendix/job.js'
import { bashAppendixProfile } from '../../fixtures/script-appendix/profile.js'
import { createBash } from '../../src/bash/index.js'
import { createWorkspaceTools, runTask, scriptedModel, type ExecutionEvent, type PolicyRule } from '../../src/agent/index.js'
import { generateEpisodes } from '../../fixtures/script-appendix/generator.js'
import { bashAppendixModel } from '../../fixtures/script-appendix/scripted-bash.js'
import { ALLOW_BASH, APPENDIX_INSTRUCTIONS, ASK_OUTSIDE_WORK, appendixContract, seedInput } from '../../fixtures/script-appendix/task.js'
import { freshRun } from '../agent/workspace.js'

const shell = (vfs: Parameters<typeof createBash>[0]['vfs']) => createBash({ vfs })

describe('the bash agent tool', () => {
  it('solves the appendix job with bash alone: the outputs equal the answer key, every script archived', async () => {
    const { files, truth } = generateEpisodes()
    const { run } = await freshRun()
    await seedInput(run, files)
    const events: ExecutionEvent[] = []
    const result = await runTask({
      vfs: run,
      model: scriptedModel(bashAppendixModel()),
      instructions: APPENDIX_INSTRUCTIONS,
      contract: appendixContract,
      policy: [ALLOW_BASH, ASK_OUTSIDE_WORK],
      bash: shell,
      onEvent: e => events.push(e),
    })
    expect(result.status).toBe('completed')
    const calls = events.filter(e => e.type === 'tool-call').map(e => (e as { toolName: string }).toolName)
    expect(new Set(calls)).toEqual(new Set(['update_plan', 'bash', 'submit_result']))
    const read = async (p: string) => JSON.parse(await run.readFile(p, 'utf8'))
    expect(await read('/outputs/assets.json')).toEqual({ characters: truth.characters, locations: truth.locations, props: truth.props })
    expect((await read('/outputs/coverage.json')).covered).toHaveLength(60)
    expect((await read('/outputs/validation.json')).problems.map((p: { message: string }) => p.message)).toEqual(
      truth.unknownCues.map(u => `cue ${u.cue} matches no character in characters.md (episodes ${u.episodes.join(', ')})`),
    )
    expect(await run.readFile('/outputs/appendix.md', 'utf8')).toMatch(/^# Production appendix\n\nEpisodes: 60, covered: 60\n/)
    expect(await run.readdir('/state/.bash')).toEqual(['cmd-001.sh', 'cmd-002.sh', 'cmd-003.sh', 'cmd-004.sh'])
  }, 120_000)

  it('refuses what the policy denies and /state; the command line fails and writes nothing', async () => {
    const { run } = await freshRun()
    const deny: PolicyRule = { decision: 'deny', access: 'write', paths: ['/outputs/**'], reason: 'no outputs here' }
    const ask: PolicyRule = { decision: 'ask', access: 'write', paths: ['/work/asked/**'], reason: 'a person decides' }
    const tools = createWorkspaceTools({ vfs: run, policy: () => [deny, ask], bash: shell })
    const attempt = (script: string) =>
      tools.bash.execute({ script }).then(
        () => 'ok',
        (e: Error) => e.message,
      )
    expect(await attempt('echo a > /work/a.txt; echo b > /outputs/b.txt')).toMatch(
      /exited 1; nothing it wrote landed.*policy does not let bash change/,
    )
    expect(await run.exists('/work/a.txt')).toBe(false)
    expect(await attempt('mkdir -p /work/asked && echo x > /work/asked/x')).toMatch(/policy asks a person/)
    expect(await attempt('echo {} > /state/plan.json')).toMatch(/exited 1/)
    expect(await run.exists('/state/plan.json')).toBe(false)
    expect(await attempt('echo a > /work/a.txt && cat /work/a.txt')).toBe('ok')
    expect(await run.readFile('/work/a.txt', 'utf8')).toBe('a\n')
  })

  it('ends a command line by what is left of the run_js CPU budget, and counts its time', async () => {
    const { run } = await freshRun()
    const turns = [
      { toolCalls: [{ toolName: 'bash', input: { script: 'echo x > /work/x; while true; do :; done' } }] },
      { text: 'stopped' },
    ]
    let i = 0
    const started = Date.now()
    const result = await runTask({
      vfs: run,
      model: scriptedModel(() => turns[Math.min(i++, turns.length - 1)]),
      instructions: 'loop',
      bash: vfs => createBash({ vfs, limits: { maxLoopIterations: 1e9, maxCommands: 1e9 } }),
      budget: { runJsCpuMs: 300 },
    })
    expect(Date.now() - started).toBeLessThan(20_000)
    expect(await run.exists('/work/x')).toBe(false)
    expect(result.status).not.toBe('completed')
    expect(result.error?.message ?? '').toMatch(/budget|run_js CPU/)
  }, 30_000)
})

describe('the bash profile in the CLI and the Node session host', () => {
  it('npm start -- --bash writes the outputs with bash alone', async () => {
    const out = mkdtempSync(join(tmpdir(), 'bash-job-'))
    const lines: string[] = []
    const code = await runJob(['--bash', '--store', 'memory', '--out', out], { log: l => lines.push(l), error: l => lines.push(l) })
    expect(code).toBe(0)
    expect(lines.filter(l => l.includes('→ bash')).length).toBeGreaterThanOrEqual(4)
    expect(lines.some(l => l.includes('run_js'))).toBe(false)
    expect(JSON.parse(readFileSync(join(out, 'assets.json'), 'utf8')).locations.length).toBeGreaterThan(10)
  }, 120_000)

  it('a session of the bash profile completes and writes the outputs', async () => {
    const { files } = generateEpisodes()
    const host = createSessionHost({ store: memoryStore(), agents: { bash: bashAppendixProfile(shell) }, namespace: 'bash', pollMs: 20 })
    try {
      const session = await host.create({ owner: 'ana', profile: 'bash' })
      await host.writeFiles(
        session.id,
        Object.entries(files).map(([path, text]) => ({ path: `/context/${path}`, data: text })),
      )
      await host.send(session.id, { text: APPENDIX_INSTRUCTIONS })
      for (let i = 0; i < 600 && !['completed', 'failed'].includes((await host.executions(session.id))[0]?.status ?? ''); i++)
        await new Promise(r => setTimeout(r, 100))
      const [record] = await host.executions(session.id)
      expect(record.status).toBe('completed')
      const ws = await host.workspace(session.id)
      expect(await ws.exists('/outputs/appendix.md')).toBe(true)
    } finally {
      await host.stop()
    }
  }, 120_000)
})
