import { describe, expect, it } from 'vitest'
import { listPending, readEvents, resumeTask, runTask, scriptedModel, type PolicyRule, type ScriptedView } from '../../src/agent/index.js'
import { createRunJs, openVfs, scopeRun, type QuickJsEngine, type RunJsTool, type RunVfs, type VfsStore } from '../../src/index.js'

/** What a runtime gives the suite: a durable store (reopened after a "restart") and its QuickJS engine. */
export interface ProgramAskHarness {
  store: () => VfsStore
  engine?: QuickJsEngine
}

const ASK_OUTSIDE_WORK: PolicyRule = {
  decision: 'ask',
  access: 'write',
  exceptPaths: ['/work/**'],
  reason: 'writes outside /work need approval',
}

/**
 * A run_js program that asks a person, inside runTask: the execution suspends with a pending action
 * as for the model's own ask_user or an approval, and after a restart (a new workspace on the same
 * store, new runner) the answer resumes the program where it stopped, without repeating a completed
 * host call.
 */
export function describeProgramAsk(name: string, setup: () => Promise<ProgramAskHarness>): void {
  describe(`runTask: a run_js program asks and waits (${name})`, () => {
    let n = 0
    const open = async (store: VfsStore, scope: string): Promise<RunVfs> =>
      scopeRun(await openVfs({ store, namespace: 'program-ask', scope }), { runId: 'r1' })
    const runJsFor = (h: ProgramAskHarness) => (vfs: RunVfs, tools: Record<string, RunJsTool>) =>
      createRunJs({ vfs, tools, ...(h.engine ? { engine: h.engine } : {}) })
    /** One run_js call with `code`; once the model sees a tool result (also after a resume), a text answer ends the task. */
    const model = (code: string, seen: ScriptedView['last'][] = []) =>
      scriptedModel(v => {
        seen.push(v.last)
        return v.last.length === 0 ? { toolCalls: [{ toolName: 'run_js', input: { code } }] } : { text: 'done' }
      })

    it('a question from inside a program: pending like ask_user, answered after a restart, the write before it not redone', async () => {
      const h = await setup()
      const store = h.store()
      const scope = `q-${n++}`
      const code = `
        await vfs.write('/work/draft.md', 'draft')
        const { answer } = await external_ask_user({ question: 'Title?', options: ['A', 'B'] })
        await vfs.write('/work/title.md', answer)
        return answer`
      const run1 = await open(store, scope)
      const first = await runTask({ vfs: run1, instructions: 'ask', runJs: runJsFor(h), model: model(code) })
      expect(first.status).toBe('suspended')
      expect(first.pending).toMatchObject({ kind: 'question', question: 'Title?', options: ['A', 'B'], toolName: 'run_js' })
      const [listed] = await listPending(run1)
      expect(listed).toMatchObject({ kind: 'question', question: 'Title?', program: { call: 'external_ask_user' } })
      expect(JSON.stringify(listed)).not.toMatch(/journal/) // summaries leave the journal out
      const version = (await run1.stat('/work/draft.md')).version
      expect(await run1.exists('/work/title.md')).toBe(false)

      const run2 = await open(store, scope)
      const seen: ScriptedView['last'][] = []
      const done = await resumeTask({ vfs: run2, runJs: runJsFor(h), model: model(code, seen), answer: { answer: 'B' } })
      expect(done.status).toBe('completed')
      expect(await run2.readFile('/work/title.md', 'utf8')).toBe('B')
      expect((await run2.stat('/work/draft.md')).version).toBe(version)
      // The model sees the program's result as the result of its one run_js call.
      expect(seen[0]).toEqual([expect.objectContaining({ toolName: 'run_js', ok: true, value: expect.objectContaining({ result: 'B' }) })])
      const events = await readEvents(run2, done.executionId)
      expect(events.filter(e => e.type === 'question')).toHaveLength(1)
    })

    it('a write the policy asks for: the program parks on an approval; approved, the write happens once; denied, it throws', async () => {
      const h = await setup()
      const store = h.store()
      const code = `
        await vfs.write('/work/a.md', 'a')
        try { await vfs.write('/outputs/o.md', 'out') } catch (e) { return 'refused: ' + e.message }
        return 'wrote'`
      for (const decision of ['approve', 'deny'] as const) {
        const scope = `a-${decision}-${n++}`
        const run1 = await open(store, scope)
        const first = await runTask({ vfs: run1, instructions: 'w', runJs: runJsFor(h), policy: [ASK_OUTSIDE_WORK], model: model(code) })
        expect(first.status).toBe('suspended')
        expect(first.pending).toMatchObject({
          kind: 'approval',
          toolName: 'run_js',
          reason: 'writes outside /work need approval',
          access: { access: 'write', paths: ['/outputs/o.md'] },
        })
        expect(await run1.exists('/outputs/o.md')).toBe(false)
        const version = (await run1.stat('/work/a.md')).version
        const run2 = await open(store, scope)
        const seen: ScriptedView['last'][] = []
        const done = await resumeTask({
          vfs: run2,
          runJs: runJsFor(h),
          policy: [ASK_OUTSIDE_WORK],
          model: model(code, seen),
          answer: { decision },
        })
        expect(done.status).toBe('completed')
        expect((await run2.stat('/work/a.md')).version).toBe(version)
        const result = (seen[0][0].value as { result: string }).result
        if (decision === 'approve') {
          expect(result).toBe('wrote')
          expect(await run2.readFile('/outputs/o.md', 'utf8')).toBe('out')
        } else {
          expect(result).toMatch(/^refused: .*the user denied this/)
          expect(await run2.exists('/outputs/o.md')).toBe(false)
        }
      }
    })

    it('a program that asks twice suspends twice and finishes with both answers', async () => {
      const h = await setup()
      const store = h.store()
      const scope = `twice-${n++}`
      const code = `
        const a = (await external_ask_user({ question: 'first?' })).answer
        await vfs.write('/work/a.md', a)
        const b = (await external_ask_user({ question: 'second?' })).answer
        return a + b`
      const first = await runTask({ vfs: await open(store, scope), instructions: 'ask', runJs: runJsFor(h), model: model(code) })
      expect(first.pending).toMatchObject({ question: 'first?' })
      const run2 = await open(store, scope)
      const second = await resumeTask({ vfs: run2, runJs: runJsFor(h), model: model(code), answer: { answer: 'x' } })
      expect(second.status).toBe('suspended')
      const version = (await run2.stat('/work/a.md')).version
      expect(second.pending).toMatchObject({ question: 'second?' })
      const seen: ScriptedView['last'][] = []
      const run3 = await open(store, scope)
      const done = await resumeTask({ vfs: run3, runJs: runJsFor(h), model: model(code, seen), answer: { answer: 'y' } })
      expect(done.status).toBe('completed')
      expect((seen[0][0].value as { result: string }).result).toBe('xy')
      expect((await run3.stat('/work/a.md')).version).toBe(version) // written once, in the first resume
    })
  })
}
