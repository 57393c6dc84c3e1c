import { describe, expect, it } from 'vitest'
import {
  listPending,
  resumeTask,
  runTask,
  scriptedModel,
  type PolicyRule,
  type RunJsSlotPolicy,
  type ScriptedView,
} from '../../src/agent/index.js'
import { createRunJs, memoryStore, openVfs, scopeRun, type QuickJsEngine, type RunJsTool, type RunVfs } from '../../src/index.js'
import type { FetchOrigins } from '../run-js/fetch-servers.js'

/** What a runtime gives the suite: the loopback servers (fetch-servers.ts) and its QuickJS engine. */
export interface FetchApprovalHarness {
  origins: () => FetchOrigins | Promise<FetchOrigins>
  engine?: QuickJsEngine
  /** As in fetch-suite.ts: a browser cannot read redirects, so the redirect case is left out there. */
  redirects: 'inspected' | 'opaque'
}

const ASK: PolicyRule = { decision: 'ask', tools: ['fetch'], reason: 'a person approves new hosts' }

async function dataRequests(origin: string, path = '/data'): Promise<number> {
  return ((await (await fetch(`${origin}/__seen`)).json()) as Array<{ url: string }>).filter(s => s.url === path).length
}

/**
 * A program's fetch of a URL its allow-list does not hold, decided by the agent's policy (rules
 * naming the tool `fetch`): `ask` parks the program on an approval and the answer resumes it
 * (approved: the request is sent once; "always": a rule is saved for the origin; denied: the fetch
 * throws in the program); broad rules never open the network.
 */
export function describeFetchApproval(name: string, h: FetchApprovalHarness): void {
  describe(`runTask: a program's fetch of a new host goes through the policy (${name})`, () => {
    let n = 0
    const open = async (): Promise<RunVfs> =>
      scopeRun(await openVfs({ store: memoryStore(), namespace: 'fetch-approval', scope: `f${n++}` }), { runId: 'r1' })
    const runJsFor =
      (echo: string, others: string[] = []) =>
      (vfs: RunVfs, tools: Record<string, RunJsTool>, { askFetch }: RunJsSlotPolicy) =>
        createRunJs({
          vfs,
          tools,
          fetch: { allow: [{ prefix: `${echo}/redirect` }], allowPrivate: [new URL(echo).host, ...others], ask: askFetch },
          ...(h.engine ? { engine: h.engine } : {}),
        })
    const code = (echo: string) =>
      `try { const r = await external_fetch('${echo}/data'); return 'fetched ' + r.status } catch (e) { return e.name + ': ' + e.message }`
    const model = (program: string, seen: ScriptedView['last'][] = []) =>
      scriptedModel(v => {
        seen.push(v.last)
        return v.last.length === 0 ? { toolCalls: [{ toolName: 'run_js', input: { code: program } }] } : { text: 'done' }
      })
    const resultOf = (seen: ScriptedView['last'][]) => (seen.at(-1)![0].value as { result: string }).result

    it('asked, then approved: the program resumes and the request is sent once', async () => {
      const { echo } = await h.origins()
      const vfs = await open()
      const before = await dataRequests(echo)
      const first = await runTask({ vfs, instructions: 'f', runJs: runJsFor(echo), policy: [ASK], model: model(code(echo)) })
      expect(first.status).toBe('suspended')
      expect(first.pending).toMatchObject({
        kind: 'approval',
        toolName: 'run_js',
        reason: 'a person approves new hosts',
        fetch: { origin: echo, method: 'GET', url: `${echo}/data` },
      })
      expect(await dataRequests(echo)).toBe(before)
      const seen: ScriptedView['last'][] = []
      const done = await resumeTask({
        vfs,
        runJs: runJsFor(echo),
        policy: [ASK],
        model: model(code(echo), seen),
        answer: { decision: 'approve' },
      })
      expect(done.status).toBe('completed')
      expect(resultOf(seen)).toBe('fetched 200')
      expect(await dataRequests(echo)).toBe(before + 1)
    })

    it('"always" saves a rule for the origin: a later execution fetches it without asking', async () => {
      const { echo } = await h.origins()
      const vfs = await open()
      const first = await runTask({ vfs, instructions: 'f', runJs: runJsFor(echo), policy: [ASK], model: model(code(echo)) })
      expect(first.status).toBe('suspended')
      await resumeTask({ vfs, runJs: runJsFor(echo), policy: [ASK], model: model(code(echo)), answer: { decision: 'always' } })
      const seen: ScriptedView['last'][] = []
      const later = await runTask({ vfs, instructions: 'again', runJs: runJsFor(echo), policy: [ASK], model: model(code(echo), seen) })
      expect(later.status).toBe('completed')
      expect(resultOf(seen)).toBe('fetched 200')
      expect(await listPending(vfs)).toEqual([])
    })

    it('a redirect to a new origin asks too; approved, the request starts again from its first URL', async ctx => {
      if (h.redirects === 'opaque') return ctx.skip()
      const { echo, other } = await h.origins()
      const vfs = await open()
      const program = `const r = await external_fetch('${echo}/redirect?to=${encodeURIComponent(other + '/data')}'); return JSON.parse(r.body).other`
      const runJs = runJsFor(echo, [new URL(other).host])
      const [hops, reached] = [await dataRequests(echo, `/redirect?to=${encodeURIComponent(other + '/data')}`), await dataRequests(other)]
      const first = await runTask({ vfs, instructions: 'f', runJs, policy: [ASK], model: model(program) })
      expect(first.pending).toMatchObject({ kind: 'approval', fetch: { origin: other, url: `${other}/data` } })
      expect(await dataRequests(other)).toBe(reached)
      const seen: ScriptedView['last'][] = []
      const done = await resumeTask({ vfs, runJs, policy: [ASK], model: model(program, seen), answer: { decision: 'approve' } })
      expect(done.status).toBe('completed')
      expect(resultOf(seen)).toBe(true)
      expect(await dataRequests(other)).toBe(reached + 1)
      expect(await dataRequests(echo, `/redirect?to=${encodeURIComponent(other + '/data')}`)).toBe(hops + 2)
    })

    it('a fetch rule that denies refuses at once; broad rules (no tools, or *) never open the network', async () => {
      const { echo } = await h.origins()
      const before = await dataRequests(echo)
      const policies: PolicyRule[][] = [
        [{ decision: 'deny', tools: ['fetch'], reason: 'no network' }],
        [{ decision: 'allow' }],
        [{ decision: 'allow', tools: ['*'] }],
        [{ decision: 'ask', tools: ['fetch'], origins: ['https://elsewhere.example'] }],
        [],
      ]
      for (const policy of policies) {
        const seen: ScriptedView['last'][] = []
        const r = await runTask({ vfs: await open(), instructions: 'f', runJs: runJsFor(echo), policy, model: model(code(echo), seen) })
        expect(r.status, JSON.stringify(policy)).toBe('completed')
        expect(resultOf(seen), JSON.stringify(policy)).toMatch(/^FetchRefused: .*not on this program's allow-list/)
      }
      expect(await dataRequests(echo)).toBe(before)
    })
  })
}
