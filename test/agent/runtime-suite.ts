import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  createRunJs,
  openVfs,
  scopeRun,
  type QuickJsEngine,
  type RunVfs,
  type TypeScriptLoader,
  type Vfs,
  type VfsStore,
} from '../../src/index.js'
import {
  listExecutionIds,
  listPending,
  readExecution,
  readEvents,
  resumeTask,
  runTask,
  scriptedModel,
  type ExecutionEvent,
  type Plan,
  type ScriptedTurn,
  type ScriptedView,
} from '../../src/agent/index.js'
import { generateEpisodes } from '../../fixtures/script-appendix/generator.js'
import { appendixModel, followUpModel } from '../../fixtures/script-appendix/scripted.js'
import {
  ALLOW_RUN_JS,
  APPENDIX_INSTRUCTIONS,
  ASK_OUTSIDE_WORK,
  FOLLOW_UP_INSTRUCTIONS,
  appendixContract,
  seedInput,
} from '../../fixtures/script-appendix/task.js'
import { COPY_INSTRUCTIONS, copyContract, copyModel, type Action } from './copy-task.js'
import { Killed, killable, nth } from './kill-switch.js'

/** What a runtime provides to the shared agent-runtime suite. */
export interface AgentHarness {
  store: VfsStore
  /** The QuickJS engine for run_js in this runtime (workerd needs its own); default: the library default. */
  engine?: QuickJsEngine
  /** How run_js loads ts-blank-space here; false where it cannot. The example's programs are plain JavaScript. */
  typescript?: TypeScriptLoader | false
  /** Episodes of the generated season for the full run (default 12; the kill tests use 6). */
  episodes?: number
  cleanup?: () => Promise<void>
}

const COPY_NAMES = ['a.md', 'b.md', 'c.md']

/**
 * The agent runtime's important behaviours, the same in every runtime and on every store: the
 * script-appendix example end to end (scripted model, real run_js on QuickJS, contract rejection
 * and correction, follow-up), plan rules, resubmission rules, a durable ASK approval across a
 * reopen, and kill/resume with no completed step redone. Every "restart" reopens the workspace
 * from the store, so durable stores are really read back.
 */
export function describeAgentRuntime(name: string, setup: () => Promise<AgentHarness>): void {
  describe(`agent runtime: ${name}`, () => {
    let h: AgentHarness
    let n = 0
    const opened: Vfs[] = []
    const ns = 'agent-suite'
    const open = async (scope: string, runId = 'main'): Promise<RunVfs> => {
      const base = await openVfs({ store: h.store, namespace: ns, scope, autoRefresh: false })
      opened.push(base)
      return scopeRun(base, { runId })
    }
    /** A fresh session: its scope, the run-scoped workspace, and `reopen` as a new process would. */
    const session = async () => {
      const scope = `s-${Date.now().toString(36)}-${++n}`
      return { run: await open(scope), reopen: () => open(scope) }
    }
    const runJs = (vfs: RunVfs) =>
      createRunJs({
        vfs,
        ...(h.engine ? { engine: h.engine } : {}),
        ...(h.typescript !== undefined ? { typescript: h.typescript } : {}),
      })
    const outputs = async (run: RunVfs) => {
      const out: Record<string, string> = {}
      for (const p of await run.glob('/outputs/**')) out[p] = await run.readFile(p, 'utf8')
      return out
    }

    beforeAll(async () => {
      h = await setup()
    })
    afterAll(async () => {
      for (const v of opened) await v.close().catch(() => {})
      await h?.cleanup?.()
    })

    it('runs the script-appendix example end to end: run_js extraction, one rejection, a correction, a follow-up that reuses the work', async () => {
      const count = h.episodes ?? 12
      const { files, truth } = generateEpisodes({ count })
      const { run, reopen } = await session()
      await seedInput(run, files)
      const events: ExecutionEvent[] = []
      const first = await runTask({
        vfs: run,
        model: scriptedModel(appendixModel()),
        instructions: APPENDIX_INSTRUCTIONS,
        contract: appendixContract,
        policy: [ALLOW_RUN_JS, ASK_OUTSIDE_WORK],
        runJs,
        onEvent: e => events.push(e),
      })
      expect(first.status).toBe('completed')
      const rejections = events.filter(e => e.type === 'result-rejected') as Array<{ problems: string[] }>
      expect(rejections).toHaveLength(1)
      expect(rejections[0].problems).toContain(
        `episode ${count} (/context/episodes/episode-${String(count).padStart(2, '0')}.fountain) is not covered: no location lists it`,
      )
      for (const p of rejections[0].problems) expect(p).toMatch(new RegExp(`\\b${count}\\b`))
      expect(first.plan!.steps.map(s => [s.id, s.status])).toEqual([
        ['survey', 'completed'],
        ['extract', 'completed'],
        ['assets', 'completed'],
        ['appendix', 'completed'],
        ['fix-1', 'completed'],
      ])
      const types = new Set(events.map(e => e.type))
      for (const t of [
        'execution-start',
        'window-start',
        'tool-call',
        'tool-result',
        'plan-updated',
        'checkpoint',
        'result-rejected',
        'result-accepted',
        'execution-end',
      ] as const)
        expect(types, t).toContain(t)
      expect(events.filter(e => e.type === 'tool-call' && e.toolName === 'run_js')).toHaveLength(7)

      const follow = await runTask({
        vfs: run,
        model: scriptedModel(followUpModel()),
        instructions: FOLLOW_UP_INSTRUCTIONS,
        runJs,
      })
      expect(follow.status).toBe('completed')
      expect(follow.toolCalls / first.toolCalls).toBeLessThanOrEqual(0.3)

      // A new process on the same store sees both executions and every output.
      const again = await reopen()
      const ids = await listExecutionIds(again)
      expect(ids).toEqual([first.executionId, follow.executionId])
      for (const id of ids) expect((await readExecution(again, id))?.status).toBe('completed')
      expect((await readEvents(again, first.executionId)).some(e => e.type === 'result-rejected')).toBe(true)
      const read = async (p: string) => JSON.parse(await again.readFile(p, 'utf8'))
      const assets = await read('/outputs/assets.json')
      expect(assets).toEqual({ characters: truth.characters, locations: truth.locations, props: truth.props })
      expect(first.result).toEqual(assets)
      expect(await read('/outputs/coverage.json')).toEqual({
        episodes: count,
        covered: Array.from({ length: count }, (_, i) => i + 1),
        missing: [],
      })
      const validation = await read('/outputs/validation.json')
      expect(validation.pass).toBe(true)
      expect(validation.problems).toHaveLength(truth.unknownCues.length)
      expect(await again.readFile('/outputs/appendix.md', 'utf8')).toMatch(
        new RegExp(`^# Production appendix\\n\\nEpisodes: ${count}, covered: ${count}\\n`),
      )
      const index = await again.readFile('/outputs/characters-by-location.md', 'utf8')
      expect(index.split('\n').filter(l => l.startsWith('- '))).toHaveLength(truth.locations.length)
    })

    it('enforces the plan rules through update_plan and submit_result, each as a tool error naming the rule', async () => {
      const { run } = await session()
      await run.seed('/context/a.md', 'a')
      const script: Array<ScriptedTurn['toolCalls']> = [
        [{ toolName: 'ls', input: { path: '/context' } }],
        [{ toolName: 'update_plan', input: { steps: [{ id: 'a', title: 'A', status: 'completed' }] } }],
        [
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
        [
          {
            toolName: 'update_plan',
            input: {
              steps: [
                { id: 'a', title: 'A', status: 'completed' },
                { id: 'b', title: 'B', status: 'in_progress' },
              ],
            },
          },
        ],
        [{ toolName: 'write_file', input: { path: '/work/a.txt', content: 'a' } }],
        [
          {
            toolName: 'update_plan',
            input: {
              steps: [
                { id: 'a', title: 'A', status: 'completed' },
                { id: 'b', title: 'B', status: 'completed' },
              ],
            },
          },
        ],
        [
          {
            toolName: 'update_plan',
            input: {
              steps: [
                { id: 'a', title: 'A', status: 'completed' },
                { id: 'b', title: 'B', status: 'in_progress' },
              ],
            },
          },
        ],
        [{ toolName: 'update_plan', input: { steps: [{ id: 'b', title: 'B', status: 'in_progress' }] } }],
        [{ toolName: 'submit_result', input: { result: { files: [] } } }],
      ]
      const events: ExecutionEvent[] = []
      let i = 0
      const r = await runTask({
        vfs: run,
        instructions: 'follow the script',
        contract: copyContract,
        limits: { maxIdleWindows: 1 },
        onEvent: e => events.push(e),
        model: scriptedModel(() => {
          const calls = script[i++]
          return calls ? { toolCalls: calls } : {}
        }),
      })
      const seen = events.flatMap(e => (e.type === 'tool-result' ? [{ toolName: e.toolName, ok: e.ok, value: e.error?.message }] : []))
      expect(seen.map(s => [s.toolName, s.ok])).toEqual([
        ['ls', false],
        ['update_plan', false],
        ['update_plan', true],
        ['update_plan', false],
        ['write_file', true],
        ['update_plan', false],
        ['update_plan', true],
        ['update_plan', false],
        ['submit_result', false],
      ])
      const rules = seen.filter(s => !s.ok).map(s => /Plan rule "([a-z-]+)" broken/.exec(String(s.value))?.[1] ?? String(s.value))
      expect(rules.slice(0, 5)).toEqual([
        'plan-first',
        'new-step-not-completed',
        'work-before-completion',
        'one-completion-per-update',
        'completed-is-final',
      ])
      expect(rules[5]).toBe('plan-complete')
      expect(seen.filter(s => !s.ok)[5].value).toMatch(/The plan is not complete: "b" is in_progress/)
      for (const s of seen.filter(x => !x.ok)) expect(String(s.value)).toMatch(/Next: /)
      const stored = JSON.parse(await run.readFile('/state/plan.json', 'utf8')) as Plan
      expect(stored.steps.map(s => [s.id, s.status])).toEqual([
        ['a', 'completed'],
        ['b', 'in_progress'],
      ])
      expect(r.status).toBe('failed')
    })

    it('rejects a result with concrete problems, refuses a resubmission without a correction step, accepts the corrected one', async () => {
      const { run } = await session()
      for (const f of COPY_NAMES) await run.seed(`/context/${f}`, `# ${f}\nhello ${f}\n`)
      const copy = copyModel(COPY_NAMES, { gap: 'b.md' })
      const seen: ScriptedView['results'] = []
      let retried = false
      const events: ExecutionEvent[] = []
      const r = await runTask({
        vfs: run,
        instructions: COPY_INSTRUCTIONS,
        contract: copyContract,
        onEvent: e => events.push(e),
        model: scriptedModel(v => {
          seen.push(...v.last)
          const last = v.last[v.last.length - 1]
          // Right after the rejection, try to resubmit without fixing anything first.
          if (last?.toolName === 'submit_result' && !last.ok && !retried) {
            retried = true
            return { toolCalls: [{ toolName: 'submit_result', input: {} }] }
          }
          return copy(v)
        }),
      })
      expect(r.status).toBe('completed')
      expect(r.result).toEqual({ files: COPY_NAMES })
      const submits = seen.filter(s => s.toolName === 'submit_result')
      expect(submits.map(s => s.ok)).toEqual([false, false])
      expect(String(submits[0].value)).toMatch(/rejected \(1 problem\):\n- b\.md is missing from files/)
      expect(String(submits[1].value)).toMatch(/no correction step since.*Next: add a new step/s)
      expect(events.filter(e => e.type === 'result-rejected')).toEqual([
        expect.objectContaining({ problems: ['b.md is missing from files'] }),
      ])
      expect(r.plan!.steps.at(-1)).toMatchObject({ id: 'fix-1', status: 'completed' })
    })

    it('suspends on an ASK rule with a durable pending approval and resumes it after a reopen', async () => {
      const { run, reopen } = await session()
      const writer =
        (seen: ScriptedView['results'] = []) =>
        (v: ScriptedView): ScriptedTurn => {
          seen.push(...v.last)
          return v.results.some(x => x.toolName === 'write_file')
            ? { text: 'done' }
            : { toolCalls: [{ toolName: 'write_file', input: { path: '/outputs/a.md', content: 'a' } }] }
        }
      const events: ExecutionEvent[] = []
      const first = await runTask({
        vfs: run,
        instructions: 'write',
        model: scriptedModel(writer()),
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

      const again = await reopen()
      expect((await listPending(again)).map(p => p.id)).toEqual([first.pending!.id])
      expect((await readExecution(again, first.executionId))?.status).toBe('suspended')
      const seen: ScriptedView['results'] = []
      const done = await resumeTask({
        vfs: again,
        model: scriptedModel(writer(seen)),
        policy: [ASK_OUTSIDE_WORK],
        answer: { decision: 'approve' },
      })
      expect(done.status).toBe('completed')
      expect(done.executionId).toBe(first.executionId)
      expect(seen[0]).toMatchObject({ toolName: 'write_file', ok: true })
      expect(await again.readFile('/outputs/a.md', 'utf8')).toBe('a')
      expect(await listPending(again)).toEqual([])
    })

    describe('kill and resume', () => {
      let reference: Promise<Record<string, string>> | undefined
      const killCount = 6
      const appendixReference = () =>
        (reference ??= (async () => {
          const { run } = await session()
          await seedInput(run, generateEpisodes({ count: killCount }).files)
          const r = await runTask({
            vfs: run,
            model: scriptedModel(appendixModel()),
            instructions: APPENDIX_INSTRUCTIONS,
            contract: appendixContract,
            runJs,
          })
          expect(r.status).toBe('completed')
          return outputs(run)
        })())

      const kills: Array<[string, (m: string, a: unknown[]) => boolean]> = [
        ['inside run_js (writing assets.json)', (m, a) => m === 'writeFile' && a[0] === '/outputs/assets.json'],
        [
          'between run_js and the checkpoint',
          (m, a) => m === 'writeFile' && a[0] === '/state/plan.json' && String(a[1]).includes('"revision": 4'),
        ],
        ['inside the correction step', nth('writeFile', '/work/extract.json', 2)],
      ]
      for (const [where, when] of kills) {
        it(`the example killed ${where}: resumes after a reopen, redoes no completed step, same outputs`, async () => {
          const expected = await appendixReference()
          const { run, reopen } = await session()
          await seedInput(run, generateEpisodes({ count: killCount }).files)
          const dying = killable(run, when)
          await expect(
            runTask({
              vfs: dying,
              model: scriptedModel(appendixModel()),
              instructions: APPENDIX_INSTRUCTIONS,
              contract: appendixContract,
              runJs,
            }),
          ).rejects.toBeInstanceOf(Killed)
          expect(dying.killed).toBe(true)

          const again = await reopen()
          const done = (JSON.parse(await again.readFile('/state/plan.json', 'utf8')) as Plan).steps
            .filter(s => s.status === 'completed')
            .map(s => s.id)
          const model = appendixModel()
          const worked: string[] = []
          const r = await resumeTask({
            vfs: again,
            contract: appendixContract,
            runJs,
            model: scriptedModel(v => {
              const turn = model(v)
              if (turn.toolCalls?.some(c => c.toolName === 'run_js')) worked.push(v.state!.nextStep!.id)
              return turn
            }),
          })
          expect(r.status).toBe('completed')
          expect(worked.length).toBeGreaterThan(0)
          expect(worked.filter(s => done.includes(s))).toEqual([])
          expect(await outputs(again)).toEqual(expected)
        })
      }

      it('the copy task killed between plan.json and its checkpoint record: no completed step redone, same result', async () => {
        const { run, reopen } = await session()
        for (const f of COPY_NAMES) await run.seed(`/context/${f}`, `# ${f}\nhello ${f}\n`)
        const before: Action[] = []
        const dying = killable(run, nth('writeFile', /checkpoints\/r0003\.json$/, 1))
        await expect(
          runTask({
            vfs: dying,
            model: scriptedModel(copyModel(COPY_NAMES, { log: before })),
            instructions: COPY_INSTRUCTIONS,
            contract: copyContract,
          }),
        ).rejects.toBeInstanceOf(Killed)
        const again = await reopen()
        const completed = (JSON.parse(await again.readFile('/state/plan.json', 'utf8')) as Plan).steps
          .filter(s => s.status === 'completed')
          .map(s => s.id)
        expect(completed.length).toBeGreaterThan(0)
        const after: Action[] = []
        const r = await resumeTask({
          vfs: again,
          model: scriptedModel(copyModel(COPY_NAMES, { log: after })),
          contract: copyContract,
        })
        expect(r.status).toBe('completed')
        expect(r.result).toEqual({ files: COPY_NAMES })
        expect(after.filter(a => completed.includes(a.step))).toEqual([])
        for (const f of COPY_NAMES) expect(await again.readFile(`/outputs/${f}`, 'utf8')).toBe(`# ${f}\nhello ${f}`.toUpperCase())
        const checkpoints = await again.readdir(`/state/executions/${r.executionId}/checkpoints`)
        expect(checkpoints).toEqual(Array.from({ length: checkpoints.length }, (_, i) => `r${String(i + 1).padStart(4, '0')}.json`))
      })
    })
  })
}
