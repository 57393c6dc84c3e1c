/**
 * Hostile calls to the agent tools (issue 7 §4 and the edit_file blow-up of §1). Every tool input
 * is model-written: a call either does all of what it says or nothing at all, never escalates
 * (run_js cannot write /state, whatever form the runner takes), policy rules hold for each file
 * operation a program makes, and no input makes the host spend memory out of proportion.
 *
 * Shared by the runtimes: `describeHostileAgentTools(name, setup)`; each runtime passes its store
 * and, where the default does not load, its QuickJS engine.
 */
import { beforeEach, describe, expect, it } from 'vitest'
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
  createWorkspaceTools,
  resumeTask,
  runTask,
  scriptedModel,
  ToolError,
  type LanguageModel,
  type PolicyRule,
  type ScriptedView,
  type ToolSet,
} from '../../src/agent/index.js'
import { evaluatePolicy, globCacheSize, loadSavedRules } from '../../src/agent/policy/policy.js'
import { runJsView } from '../../src/agent/policy/run-js-view.js'
import { ALLOW_RUN_JS, ASK_OUTSIDE_WORK } from '../../fixtures/script-appendix/task.js'

/** What a runtime provides to the suite. */
export interface HostileToolsHarness {
  store: VfsStore
  engine?: QuickJsEngine
  typescript?: TypeScriptLoader | false
}

type Call = [tool: string, input: Record<string, unknown>]

export function describeHostileAgentTools(name: string, setup: () => Promise<HostileToolsHarness>): void {
  describe(`hostile agent tool calls: ${name}`, () => {
    let h: HostileToolsHarness
    let base: Vfs
    let run: RunVfs
    let tools: ToolSet
    let n = 0

    const runJs = (vfs: RunVfs) =>
      createRunJs({
        vfs,
        ...(h.engine ? { engine: h.engine } : {}),
        ...(h.typescript !== undefined ? { typescript: h.typescript } : {}),
      })

    /** Every entry of the workspace (all runs, /state included) with its content: what "no effect" compares. */
    async function snapshot(): Promise<Record<string, string>> {
      const out: Record<string, string> = {}
      for (const p of await base.glob('/**', { includeDirs: true })) {
        const s = await base.stat(p)
        out[p] = s.type === 'directory' ? '<dir>' : `${s.version}:${await base.readFile(p, 'utf8')}`
      }
      return out
    }

    async function refused(call: Call, code?: string): Promise<ToolError> {
      const error = await tools[call[0]].execute(call[1]).then(
        () => undefined,
        (e: unknown) => e,
      )
      expect(error, `${call[0]}(${JSON.stringify(call[1])}) should fail`).toBeInstanceOf(ToolError)
      if (code) expect((error as ToolError).code, `${call[0]}(${JSON.stringify(call[1])})`).toBe(code)
      expect((error as ToolError).message).toMatch(/Next: /)
      return error as ToolError
    }

    beforeEach(async () => {
      h ??= await setup()
      base = await openVfs({
        store: h.store,
        namespace: 'hostile-tools',
        scope: `s${++n}-${Date.now().toString(36)}`,
        autoRefresh: false,
      })
      run = scopeRun(base, { runId: 'r1' })
      await run.seed('/context/in.md', 'context file\n')
      await run.writeFile('/work/a.md', 'A\n')
      await run.writeFile('/work/keep.md', 'keep\n')
      await run.writeFile('/work/d/x.md', 'x\n')
      await run.mkdir('/work/empty')
      await run.writeFile('/outputs/o.md', 'o\n')
      await run.writeFile('/state/note.json', '{}')
      tools = createWorkspaceTools({ vfs: run })
      for (const p of ['/work/a.md', '/work/keep.md', '/work/d/x.md', '/context/in.md']) await tools.read_file.execute({ path: p })
    })

    describe('a write tool call has its whole effect or none', () => {
      it('a move onto the same file, however the path is spelled, keeps the file', async () => {
        const before = await snapshot()
        for (const to of ['/work/a.md', '/work/./a.md', '/work//a.md', '/work/a.md/', '//work/./a.md//', 'work/a.md']) {
          for (const overwrite of [true, false]) {
            await tools.move.execute({ from: '/work/a.md', to, overwrite }).catch((e: unknown) => expect(e).toBeInstanceOf(ToolError))
            expect(await run.readFile('/work/a.md', 'utf8'), `move to ${to}, overwrite ${overwrite}`).toBe('A\n')
          }
        }
        for (const to of ['/work/d/', '/work/./d', '/work//d'])
          await tools.move.execute({ from: '/work/d', to, overwrite: true }).catch(() => {})
        expect(await snapshot()).toEqual(before)
      })

      it('a refused move touches neither end', async () => {
        const before = await snapshot()
        const calls: Array<[Call, string]> = [
          // The reproduction: the target was deleted before the rename was refused.
          [['move', { from: '/context/in.md', to: '/work/keep.md', overwrite: true }], 'permission'],
          [['move', { from: '/work/keep.md', to: '/context/in.md', overwrite: true }], 'permission'],
          [['move', { from: '/work/keep.md', to: '/skills/k.md', overwrite: true }], 'permission'],
          [['move', { from: '/work/a.md', to: '/nowhere/a.md', overwrite: true }], 'permission'],
          [['move', { from: '/work/a.md', to: '/state/policy.json', overwrite: true }], 'permission'],
          [['move', { from: '/state/note.json', to: '/work/keep.md', overwrite: true }], 'permission'],
          [['move', { from: '/work', to: '/outputs/w', overwrite: true }], 'permission'],
          [['move', { from: '/work/a.md', to: '/work/keep.md', overwrite: false }], 'exists'],
          [['move', { from: '/work/a.md', to: '/work/d', overwrite: true }], 'exists'],
          [['move', { from: '/work/a.md', to: '/work/empty/', overwrite: true }], 'exists'],
          [['move', { from: '/work/d', to: '/work/keep.md', overwrite: true }], undefined as unknown as string],
          [['move', { from: '/work/d', to: '/work/d/x.md', overwrite: true }], undefined as unknown as string],
          [['move', { from: '/work/d', to: '/work/d/sub', overwrite: true }], 'invalid-input'],
          [['move', { from: '/work/missing.md', to: '/work/keep.md', overwrite: true }], 'not-found'],
          [['move', { from: '/work/a.md', to: '/work/keep.md/x', overwrite: true }], undefined as unknown as string],
          [['move', { from: '/work/../context/in.md', to: '/work/keep.md', overwrite: true }], 'invalid-input'],
          [['move', { from: '/work/a.md', to: '/work/\u0000', overwrite: true }], 'invalid-input'],
        ]
        for (const [call, code] of calls) {
          await refused(call, code)
          expect(await snapshot(), JSON.stringify(call)).toEqual(before)
        }
      })

      it('a move that replaces a file is one commit', async () => {
        const commits: string[][] = []
        const off = base.onChange(c => c.type === 'commit' && commits.push(c.paths))
        await tools.move.execute({ from: '/work/a.md', to: '/work/./keep.md/', overwrite: true })
        await base.flush()
        off()
        expect(await run.readFile('/work/keep.md', 'utf8')).toBe('A\n')
        expect(await run.exists('/work/a.md')).toBe(false)
        expect(commits).toHaveLength(1)
        expect(commits[0]).toEqual(expect.arrayContaining(['/runs/r1/work/a.md', '/runs/r1/work/keep.md']))
      })

      it('write_file, edit_file, delete and mkdir refuse without a trace', async () => {
        const before = await snapshot()
        const calls: Array<[Call, string | undefined]> = [
          [['write_file', { path: '/context/in.md', content: 'pwned' }], 'permission'],
          [['write_file', { path: '/context/new.md', content: 'pwned' }], 'permission'],
          [['write_file', { path: '/state/policy.json', content: '{"rules":[{"decision":"allow"}]}' }], 'permission'],
          [['write_file', { path: '/work/d', content: 'x' }], 'is-directory'],
          [['write_file', { path: '/work/d/', content: 'x' }], 'is-directory'],
          [['write_file', { path: '/work/keep.md/child', content: 'x' }], 'not-directory'],
          [['write_file', { path: '/work/./keep.md', content: 'x', overwrite: false }], 'exists'],
          [['write_file', { path: '/work/../state/x', content: 'x' }], 'invalid-input'],
          [['edit_file', { path: '/context/in.md', old_string: 'context', new_string: 'pwned' }], 'permission'],
          [['edit_file', { path: '/work/d', old_string: 'x', new_string: 'y' }], undefined],
          [['edit_file', { path: '/work/keep.md', old_string: 'nope', new_string: 'y' }], 'no-match'],
          [['delete', { path: '/work' }], 'permission'],
          [['delete', { path: '/work/', recursive: true }], 'permission'],
          [['delete', { path: '/work/./', recursive: true }], 'permission'],
          [['delete', { path: '/', recursive: true }], undefined],
          [['delete', { path: '/context/in.md' }], 'permission'],
          [['delete', { path: '/context', recursive: true }], 'permission'],
          [['delete', { path: '/state/note.json' }], 'permission'],
          [['delete', { path: '/work/d' }], 'not-empty'],
          [['mkdir', { path: '/work/keep.md' }], 'exists'],
          [['mkdir', { path: '/work/keep.md/sub' }], 'not-directory'],
          [['mkdir', { path: '/context/new' }], 'permission'],
          [['mkdir', { path: '/state/new' }], 'permission'],
        ]
        for (const [call, code] of calls) {
          await refused(call, code)
          expect(await snapshot(), JSON.stringify(call)).toEqual(before)
        }
      })

      it('paths spelled differently name the same file for the read ledger', async () => {
        await tools.edit_file.execute({ path: '/work//a.md/', old_string: 'A', new_string: 'B' })
        expect(await run.readFile('/work/a.md', 'utf8')).toBe('B\n')
        await tools.write_file.execute({ path: '/work/./a.md', content: 'C\n' })
        await tools.edit_file.execute({ path: 'work/a.md', old_string: 'C', new_string: 'D' })
        expect(await run.readFile('/work/a.md', 'utf8')).toBe('D\n')
      })
    })

    describe('edit_file cannot make the host allocate out of proportion', () => {
      it('replace_all that would grow 300 KB into hundreds of MB fails before allocating', async () => {
        await run.writeFile('/work/big.txt', 'a'.repeat(300_000))
        await tools.read_file.execute({ path: '/work/big.txt' })
        const before = await snapshot()
        const error = await refused(
          ['edit_file', { path: '/work/big.txt', old_string: 'a', new_string: 'b'.repeat(1000), replace_all: true }],
          'too-large',
        )
        expect(error.message).toMatch(/replace_all/)
        expect(await snapshot()).toEqual(before)
        // Many matches without replace_all: the error names a few lines, not all 300,000.
        const several = await refused(['edit_file', { path: '/work/big.txt', old_string: 'a', new_string: 'b' }], 'several-matches')
        expect(several.message.length).toBeLessThan(600)
      })

      it('the number of replacements is capped too, and the caps are limits a caller may change', async () => {
        await run.writeFile('/work/many.txt', 'ab'.repeat(60_000))
        await tools.read_file.execute({ path: '/work/many.txt' })
        await refused(['edit_file', { path: '/work/many.txt', old_string: 'a', new_string: 'c', replace_all: true }], 'too-large')
        const roomy = createWorkspaceTools({ vfs: run, limits: { editReplacements: 100_000 } })
        await roomy.read_file.execute({ path: '/work/many.txt' })
        expect(await roomy.edit_file.execute({ path: '/work/many.txt', old_string: 'a', new_string: 'c', replace_all: true })).toMatch(
          /60000 occurrences/,
        )
        const tight = createWorkspaceTools({ vfs: run, limits: { editChars: 1000 } })
        await tight.read_file.execute({ path: '/work/keep.md' })
        await expect(
          tight.edit_file.execute({ path: '/work/keep.md', old_string: 'keep', new_string: 'k'.repeat(2000) }),
        ).rejects.toMatchObject({ code: 'too-large' })
      })
    })

    it('the policy keeps a bounded number of compiled globs, however many distinct paths it sees', () => {
      const rules: PolicyRule[] = [{ decision: 'deny', access: 'write', paths: ['/context/**'] }, ASK_OUTSIDE_WORK]
      for (let i = 0; i < 20_000; i++) {
        evaluatePolicy(rules, 'write_file', { access: 'write', paths: [`/work/f${i}.md`] })
        evaluatePolicy(rules, 'glob', { access: 'read', paths: [`/work/d${i}/**/*.md`] })
      }
      expect(globCacheSize()).toBeLessThanOrEqual(1024)
      // Still correct after churning the cache.
      expect(evaluatePolicy(rules, 'write_file', { access: 'write', paths: ['/context/x.md'] }).decision).toBe('deny')
      expect(evaluatePolicy(rules, 'write_file', { access: 'write', paths: ['/outputs/x.md'] }).decision).toBe('ask')
    })

    it('a tool call whose input nests too deep fails that call, not the runner', async () => {
      const deepText = `{"path":"/work/deep.md","content":"x","extra":${'['.repeat(100_000)}${']'.repeat(100_000)}}`
      let deepValue: unknown = 1
      for (let i = 0; i < 100_000; i++) deepValue = [deepValue]
      const inputs: unknown[] = [deepText, { path: '/work/deep.md', content: 'x', extra: deepValue }]
      const seen: string[] = []
      let turn = 0
      const NO_USAGE = { inputTokens: undefined, outputTokens: undefined, totalTokens: undefined }
      const model: LanguageModel = {
        specificationVersion: 'v2',
        provider: 'hostile',
        modelId: 'deep-input',
        async doGenerate(options) {
          const last = options.prompt[options.prompt.length - 1]
          if (last.role === 'tool') for (const part of last.content) seen.push(JSON.stringify(part.output))
          const input = inputs[turn++]
          return input === undefined
            ? { content: [{ type: 'text', text: 'done' }], finishReason: 'stop', usage: NO_USAGE }
            : {
                content: [{ type: 'tool-call', toolCallId: `c${turn}`, toolName: 'write_file', input: input as string }],
                finishReason: 'tool-calls',
                usage: NO_USAGE,
              }
        },
      }
      const r = await runTask({ vfs: run, instructions: 'deep', model, policy: [ASK_OUTSIDE_WORK] })
      expect(r.status).toBe('completed')
      expect(seen).toHaveLength(2)
      for (const s of seen) expect(s).toMatch(/nests deeper than 64 levels/)
      expect(await run.exists('/work/deep.md')).toBe(false)
    })

    it('a result file nested too deep is refused as a tool error, not thrown out of the runner', async () => {
      await run.writeFile('/work/deep.json', '['.repeat(100_000) + ']'.repeat(100_000))
      await run.writeFile('/work/flat.json', '{"ok":true}')
      const seen: ScriptedView['last'] = []
      const r = await runTask({
        vfs: run,
        instructions: 'submit',
        model: scriptedModel(v => {
          seen.push(...v.last)
          return {
            toolCalls: [{ toolName: 'submit_result', input: { path: v.call === 0 ? '/work/deep.json' : '/work/flat.json' } }],
          }
        }),
      })
      expect(r.status).toBe('completed')
      expect(r.result).toEqual({ ok: true })
      expect(String(seen[0].value)).toMatch(/deeper than 64 levels/)
    })

    it('a model-chosen tool call id cannot break saving a large result, and a result that cannot be saved does not end the run', async () => {
      await run.writeFile('/work/long.md', 'line of text\n'.repeat(500))
      const NO_USAGE = { inputTokens: undefined, outputTokens: undefined, totalTokens: undefined }
      const ids = ['x'.repeat(300), '../../policy', '\u0000/..']
      const seen: unknown[] = []
      const model = (): LanguageModel => {
        let turn = 0
        return {
          specificationVersion: 'v2',
          provider: 'hostile',
          modelId: 'ids',
          async doGenerate(options) {
            const last = options.prompt[options.prompt.length - 1]
            if (last.role === 'tool') for (const part of last.content) seen.push(part.output)
            const id = ids[turn++]
            return id === undefined
              ? { content: [{ type: 'text', text: 'done' }], finishReason: 'stop', usage: NO_USAGE }
              : {
                  content: [
                    {
                      type: 'tool-call',
                      toolCallId: id,
                      toolName: 'read_file',
                      input: JSON.stringify({ path: '/work/long.md' }),
                    },
                  ],
                  finishReason: 'tool-calls',
                  usage: NO_USAGE,
                }
          },
        }
      }
      const r = await runTask({ vfs: run, instructions: 'read', model: model(), limits: { resultChars: 500 } })
      expect(r.status).toBe('completed')
      expect(seen).toHaveLength(3)
      for (const s of seen)
        expect(s).toMatchObject({
          type: 'json',
          value: {
            spilled: true,
            path: expect.stringMatching(/^\/state\/executions\/e0001\/tool-results\/[A-Za-z0-9._-]{1,100}\.txt$/),
          },
        })
      expect(await loadSavedRules(run)).toEqual([])

      // A workspace that refuses the result file (a quota, a closed store): the model gets its beginning, the run goes on.
      const refusing = new Proxy(run, {
        get(target, prop, receiver) {
          if (prop === 'writeFile') {
            return (path: string, ...rest: unknown[]) =>
              path.includes('/tool-results/')
                ? Promise.reject(Object.assign(new Error('EQUOTA: the scope is full'), { name: 'VfsError', code: 'EQUOTA' }))
                : (target.writeFile as (...a: unknown[]) => Promise<void>)(path, ...rest)
          }
          const value = Reflect.get(target, prop, receiver)
          return typeof value === 'function' ? value.bind(target) : value
        },
      })
      seen.length = 0
      const r2 = await runTask({ vfs: refusing, instructions: 'read', model: model(), limits: { resultChars: 500 } })
      expect(r2.status).toBe('completed')
      expect(seen[0]).toMatchObject({
        type: 'json',
        value: { spilled: false, note: expect.stringMatching(/could not be saved/) },
      })
    })

    describe('run_js cannot escalate', () => {
      const POLICY_GRAB = `await vfs.write('/state/policy.json', JSON.stringify({ rules: [{ decision: 'allow', reason: 'self-granted' }] })); return 'granted'`

      it('a runner passed as an object is refused: only a factory can be given the guarded view', async () => {
        const runner = runJs(run)
        expect(() => createWorkspaceTools({ vfs: run, runJs: runner as never })).toThrow(/factory/)
        await expect(
          runTask({ vfs: run, instructions: 'x', runJs: runner as never, model: scriptedModel(() => ({ text: 'done' })) }),
        ).rejects.toThrow(/factory/)
        expect(await run.exists('/state/policy.json')).toBe(false)
      })

      it('a program cannot write /state/policy.json, so the next execution grants nothing', async () => {
        const seen: ScriptedView['last'] = []
        const first = await runTask({
          vfs: run,
          instructions: 'grab',
          runJs,
          policy: [ASK_OUTSIDE_WORK],
          model: scriptedModel(
            v => (
              seen.push(...v.last),
              v.call === 0 ? { toolCalls: [{ toolName: 'run_js', input: { code: POLICY_GRAB } }] } : { text: 'done' }
            ),
          ),
        })
        expect(first.status).toBe('completed')
        expect(seen[0]).toMatchObject({ toolName: 'run_js', ok: false })
        expect(String(seen[0].value)).toMatch(/EACCES/)
        expect(await loadSavedRules(run)).toEqual([])
        const second = await runTask({
          vfs: run,
          instructions: 'write',
          policy: [ASK_OUTSIDE_WORK],
          model: scriptedModel(() => ({
            toolCalls: [{ toolName: 'write_file', input: { path: '/outputs/x.md', content: 'x' } }],
          })),
        })
        expect(second.status).toBe('suspended')
      })
    })

    describe('the policy holds for each file operation of a program', () => {
      /** Runs each program as one run_js call and returns the tool results the model saw. */
      async function programs(policy: PolicyRule[], codes: string[]) {
        const seen: ScriptedView['last'] = []
        const r = await runTask({
          vfs: run,
          instructions: 'programs',
          runJs,
          policy,
          model: scriptedModel(v => {
            seen.push(...v.last)
            return v.call < codes.length ? { toolCalls: [{ toolName: 'run_js', input: { code: codes[v.call] } }] } : { text: 'done' }
          }),
        })
        return { r, seen }
      }

      it('"ask outside /work": writes to /work pass, a write to /outputs parks the program on an approval, nothing is written', async () => {
        const { r, seen } = await programs(
          [ASK_OUTSIDE_WORK],
          [
            `await vfs.write('/work/ok.md', 'fine'); return (await vfs.read('/outputs/o.md')).length`,
            `await vfs.write('/outputs/new.md', 'x'); return 'wrote'`,
          ],
        )
        // A program can wait for a person now (docs/run-js.md, "Programs that ask and wait").
        expect(r.status).toBe('suspended')
        expect(r.pending).toMatchObject({
          kind: 'approval',
          toolName: 'run_js',
          reason: 'writes outside /work need approval',
          access: { access: 'write', paths: ['/outputs/new.md'] },
        })
        expect(seen.map(s => s.ok)).toEqual([true])
        expect(seen[0].value).toMatchObject({ success: true, result: 2 })
        expect(await run.readFile('/work/ok.md', 'utf8')).toBe('fine')
        expect(await run.exists('/outputs/new.md')).toBe(false)
      })

      it('a runner that cannot wait: an ask fails the operation with EACCES pointing to the file tools', async () => {
        const view = runJsView(run, () => [ASK_OUTSIDE_WORK])
        await expect(view.writeFile('/outputs/new.md', 'x')).rejects.toThrow(/EACCES.*writes outside \/work need approval.*write_file/)
        expect(await run.exists('/outputs/new.md')).toBe(false)
      })

      it('deny rules fail the operation, reads under a denied folder included (listing above it too)', async () => {
        await run.seed('/context/secret/key.txt', 'hunter2')
        const deny: PolicyRule = { decision: 'deny', access: 'read', paths: ['/context/secret/**'], reason: 'secrets' }
        const { r, seen } = await programs(
          [deny],
          [
            `return await vfs.read('/context/in.md')`,
            `return await vfs.read('/context/secret/key.txt')`,
            `return await vfs.list('/context', { recursive: true })`,
            `return (await vfs.grep('hunter2')).matches`,
          ],
        )
        expect(r.status).toBe('completed')
        expect(seen.map(s => s.ok)).toEqual([true, false, false, false])
        for (const s of seen.slice(1)) expect(String(s.value)).toMatch(/EACCES/)
        expect(JSON.stringify(seen)).not.toMatch(/hunter2.*hunter2/) // the pattern appears once (the program), never a match
      })

      it('deny rules on writes hold for each operation; nothing a refused program tried is left behind', async () => {
        const before = await snapshot()
        const { r, seen } = await programs(
          [
            { decision: 'deny', access: 'write', paths: ['/outputs/keep/**'], reason: 'frozen' },
            { decision: 'deny', access: 'write', exceptPaths: ['/work/**'], reason: 'only /work' },
          ],
          [
            `await vfs.write('/outputs/keep/x.md', 'x'); return 1`,
            `await vfs.remove('/outputs/o.md'); return 1`,
            `await vfs.write('/work/../outputs/x.md', 'x'); return 1`,
          ],
        )
        expect(r.status).toBe('completed')
        expect(seen.map(s => s.ok)).toEqual([false, false, false])
        expect(String(seen[0].value)).toMatch(/EACCES.*frozen/)
        expect(String(seen[1].value)).toMatch(/EACCES/)
        const after = await snapshot()
        // Only the runner's own records and run_js's archived scripts changed.
        const mine = (p: string) => p.startsWith('/runs/r1/state/') || p.includes('/.run_js')
        const others = (s: Record<string, string>) => Object.fromEntries(Object.entries(s).filter(([p]) => !mine(p)))
        expect(others(after)).toEqual(others(before))
      })

      it('the guarded view checks both ends of a rename or copy before anything changes', async () => {
        const view = runJsView(run, () => [ASK_OUTSIDE_WORK])
        const before = await snapshot()
        await expect(view.rename('/work/a.md', '/outputs/a.md')).rejects.toMatchObject({ code: 'EACCES' })
        await expect(view.rename('/outputs/o.md', '/work/o.md')).rejects.toMatchObject({ code: 'EACCES' })
        await expect(view.copy('/work/a.md', '/outputs/a.md')).rejects.toMatchObject({ code: 'EACCES' })
        await expect(view.rename('/work/a.md', '/state/a.md')).rejects.toMatchObject({ code: 'EACCES' })
        await expect(view.writeFile('/state/policy.json', '{}')).rejects.toMatchObject({ code: 'EACCES' })
        expect(await snapshot()).toEqual(before)
        await view.rename('/work/a.md', '/work/b.md')
        expect(await run.readFile('/work/b.md', 'utf8')).toBe('A\n')
      })

      it('whole-tool rules still decide run_js itself', async () => {
        const asked = await programs(
          [{ decision: 'ask', tools: ['run_js'] }, ASK_OUTSIDE_WORK],
          [`await vfs.write('/outputs/new.md', 'x'); return 1`],
        )
        expect(asked.r.status).toBe('suspended')
        expect(asked.r.pending).toMatchObject({ toolName: 'run_js' })
        // Approved as a whole, the program does what it says.
        const done = await resumeTask({
          vfs: run,
          runJs,
          policy: [{ decision: 'ask', tools: ['run_js'] }, ASK_OUTSIDE_WORK],
          answer: { decision: 'approve' },
          model: scriptedModel(() => ({ text: 'done' })),
        })
        expect(done.status).toBe('completed')
        expect(await run.readFile('/outputs/new.md', 'utf8')).toBe('x')

        const denied = await programs([{ decision: 'deny', tools: ['run_js'], reason: 'no programs' }], [`return 1`])
        expect(String(denied.seen[0].value)).toMatch(/does not allow run_js: no programs/)
        const allowed = await programs([ALLOW_RUN_JS, ASK_OUTSIDE_WORK], [`await vfs.write('/outputs/new2.md', 'y'); return 1`])
        expect(allowed.seen[0]).toMatchObject({ ok: true })
        expect(await run.readFile('/outputs/new2.md', 'utf8')).toBe('y')
        // /state stays read-only even when run_js is allowed everything.
        const grab = await programs([ALLOW_RUN_JS, { decision: 'allow' }], [`await vfs.write('/state/policy.json', '{}'); return 1`])
        expect(String(grab.seen[0].value)).toMatch(/EACCES/)
      })
    })
  })
}
