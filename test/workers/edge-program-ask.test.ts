import { abortAllDurableObjects, runDurableObjectAlarm } from 'cloudflare:test'
import { env } from 'cloudflare:workers'
import { beforeAll, describe, expect, it } from 'vitest'
import { createRunJs, type RunJsTool, type RunVfs } from '../../src/index.js'
import { scriptedModel } from '../../src/agent/index.js'
import { workerdEngine } from '../../src/runtimes/workerd/index.js'
import type { AgentProfile } from '../../src/session/index.js'
import { expectContiguous } from '../session/harness.js'
import { call, configureEdge, createSession, events, expectJson, token, waitStatus } from './edge-harness.js'

// A question asked from inside a run_js program, with a real Durable Object reset between the
// question and the answer (abortAllDurableObjects: memory, timers and promises gone, storage kept).

/** Reads the clock and a random number, writes, asks, writes the answer: nothing before the question may be redone. */
const PROGRAM = `
const t = Date.now(), r = Math.random()
await vfs.write('/work/before.md', 'written before the question: ' + t + ' ' + r)
const { answer } = await external_ask_user({ question: 'Which title?', options: ['Dawn', 'Dusk'] })
await vfs.write('/work/title.md', answer)
return { answer, t, r }`

/** Program runs the profile's run_js made, counted across instances (module state outlives a reset). */
const runs = { programs: 0 }
const asksInProgram: AgentProfile = {
  description: 'runs one program that asks the user',
  setup: () => ({
    model: scriptedModel(v => (v.last.length === 0 ? { toolCalls: [{ toolName: 'run_js', input: { code: PROGRAM } }] } : { text: 'done' })),
    runJs: (vfs: RunVfs, tools: Record<string, RunJsTool>) => {
      const runJs = createRunJs({ vfs, tools, engine: workerdEngine(), typescript: false })
      return { ...runJs, run: (code, options) => (runs.programs++, runJs.run(code, options)) }
    },
  }),
}
let ana: string

beforeAll(async () => {
  configureEdge({ agents: { asksInProgram } })
  ana = await token('ana')
})

/** Versions of the program's two files in the session's workspace. */
async function versions(id: string): Promise<Record<string, number>> {
  const list = await expectJson<Array<{ path: string; version: number }>>(call('GET', `/sessions/${id}/files`, ana), 200)
  return Object.fromEntries(list.filter(f => /\/(before|title)\.md$/.test(f.path)).map(f => [f.path.replace(/.*\//, ''), f.version]))
}

describe('a question asked from inside a program, answered after the Durable Object was reset (workerd)', () => {
  it('shows as a pending question; after the reset the answer resumes the program without redoing its write', async () => {
    const s = await createSession(ana, 'asksInProgram')
    await expectJson(call('POST', `/sessions/${s.id}/messages`, ana, { text: 'go' }), 202)
    expect(await waitStatus(ana, s.id, ['waiting_input', 'failed'])).toBe('waiting_input')
    const [question] = await expectJson<any[]>(call('GET', `/sessions/${s.id}/pending`, ana), 200)
    expect(question).toMatchObject({
      kind: 'question',
      toolName: 'run_js',
      question: 'Which title?',
      options: ['Dawn', 'Dusk'],
      program: { call: 'external_ask_user' },
    })
    const before = await versions(s.id)
    expect(Object.keys(before)).toEqual(['before.md'])
    expect(runs.programs).toBe(1)

    await abortAllDurableObjects()
    const stub = env.SESSIONS.getByName(s.id)
    await expectJson(call('POST', `/sessions/${s.id}/pending/${question.id}`, ana, { answer: 'Dusk' }), 202)
    // The answer request or the object's alarm resumes the run in the fresh instance.
    for (let i = 0; i < 20 && (await runDurableObjectAlarm(stub)); i++);
    expect(await waitStatus(ana, s.id, ['idle', 'failed'])).toBe('idle')

    expect(runs.programs).toBe(2) // the program ran again, replayed against its journal
    const after = await versions(s.id)
    expect(after['before.md']).toBe(before['before.md']) // not written again
    const titlePath = (await expectJson<Array<{ path: string }>>(call('GET', `/sessions/${s.id}/files`, ana), 200)).find(f =>
      f.path.endsWith('/title.md'),
    )!.path
    expect(await (await call('GET', `/sessions/${s.id}/file?path=${encodeURIComponent(titlePath)}`, ana)).text()).toBe('Dusk')
    const all = await events(ana, s.id)
    expectContiguous(all)
    const result = all.find(e => e.type === 'tool-result' && (e as any).toolName === 'run_js' && (e as any).ok) as any
    // The time and the random number the resumed program got are the ones its first run wrote.
    const written = await (
      await call('GET', `/sessions/${s.id}/file?path=${encodeURIComponent(titlePath.replace('title.md', 'before.md'))}`, ana)
    ).text()
    expect(written).toBe(`written before the question: ${result.output.result.t} ${result.output.result.r}`)
    expect(result.output.result.answer).toBe('Dusk')
    const executions = await expectJson<any[]>(call('GET', `/sessions/${s.id}/executions`, ana), 200)
    expect(executions.map(e => e.status)).toEqual(['completed'])
  })
})
