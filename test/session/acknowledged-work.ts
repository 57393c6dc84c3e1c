import { expect, it } from 'vitest'
import { season } from './harness.js'
import { uploadForm } from './route-requests.js'

/**
 * A session host behind its HTTP API, as these cases need it (the Node app, the Worker), with the
 * profiles `appendix` and `appendix-asking` (asks a question first, wants approval for run_js).
 */
export interface AckTarget {
  call(method: string, path: string, token: string, body?: unknown): Promise<Response>
  token(owner: string): Promise<string>
}

type Pending = { id: string; kind: 'question' | 'approval'; executionId: string }
type Execution = { id: string; status: string }

/**
 * Every route that answers 202 (a message, an answer to a pending action, an abort, a resume: see
 * src/session/http/routes.ts) acknowledges work some host will carry out, or is refused with a
 * clear 409/404 — on a fork taken while its execution waited for an answer, on a closed session and
 * after a revert. A pending action a session lists is live: answering it resumes its execution.
 */
export function describeAcknowledgedWork(target: AckTarget): void {
  const json = async <T>(res: Promise<Response>, status: number): Promise<T> => {
    const r = await res
    const text = await r.text()
    expect([r.status, text.slice(0, 300)]).toEqual([status, expect.any(String)])
    return JSON.parse(text) as T
  }
  const refused = async (res: Promise<Response>, status: 404 | 409, code?: string) => {
    const body = await json<{ error: { code: string; message: string } }>(res, status)
    expect(body.error.message.length).toBeGreaterThan(10)
    if (code) expect(body.error.code).toBe(code)
  }
  const status = async (t: string, id: string) => (await json<{ status: string }>(target.call('GET', `/sessions/${id}`, t), 200)).status
  const waitFor = async (t: string, id: string, statuses: string[], timeoutMs = 60_000) => {
    const start = Date.now()
    for (;;) {
      const s = await status(t, id)
      if (statuses.includes(s)) return s
      if (Date.now() - start > timeoutMs) throw new Error(`session ${id} stayed ${s}, wanted ${statuses.join('|')}`)
      await new Promise(r => setTimeout(r, 25))
    }
  }
  const executions = (t: string, id: string) => json<Execution[]>(target.call('GET', `/sessions/${id}/executions`, t), 200)
  const pending = (t: string, id: string) => json<Pending[]>(target.call('GET', `/sessions/${id}/pending`, t), 200)
  const answerOf = (p: Pending) => (p.kind === 'question' ? { answer: 'Production appendix' } : { decision: 'always' })
  /**
   * Answers what the session asks until it is idle with `count` executions, the last one ended:
   * every 202 before must lead there (bounded: a dropped request fails the test).
   */
  const driveToEnd = async (t: string, id: string, count: number) => {
    const start = Date.now()
    let answered = ''
    while (Date.now() - start < 60_000) {
      const now = await status(t, id)
      const runs = await executions(t, id)
      const last = runs.at(-1)
      if (now === 'idle' && runs.length >= count && (last?.status === 'completed' || last?.status === 'failed')) return runs
      const [p] = now === 'waiting_input' || now === 'waiting_approval' ? await pending(t, id) : []
      // Just after an answer the status may still say waiting (the answer is no longer listed).
      if (p && p.id !== answered) {
        await json(target.call('POST', `/sessions/${id}/pending/${p.id}`, t, answerOf(p)), 202)
        answered = p.id
      } else await new Promise(r => setTimeout(r, 25))
    }
    throw new Error(`session ${id} never ended execution ${count}: ${await status(t, id)}, ${JSON.stringify(await executions(t, id))}`)
  }
  const newSession = async (t: string, profile: string) => {
    const s = await json<{ id: string }>(target.call('POST', '/sessions', t, { profile, title: 'acknowledged' }), 201)
    await json(target.call('POST', `/sessions/${s.id}/files`, t, uploadForm(season())), 201)
    return s.id
  }
  /** A session of `appendix-asking` whose first execution waits for the answer to its question. */
  const waiting = async (t: string) => {
    const id = await newSession(t, 'appendix-asking')
    await json(target.call('POST', `/sessions/${id}/messages`, t, { text: 'Write the appendix.' }), 202)
    await waitFor(t, id, ['waiting_input'])
    const [question] = await pending(t, id)
    expect(question).toMatchObject({ kind: 'question' })
    return { id, question }
  }

  it('a fork taken while its execution waits for an answer lists no dead question; every 202 route on it leads to work', async () => {
    const t = await target.token('ana')
    const { id, question } = await waiting(t)
    const { events } = await json<{ events: Array<{ seq: number }> }>(target.call('GET', `/sessions/${id}/events?after=0`, t), 200)
    const fork = await json<{ id: string; status: string }>(
      target.call('POST', `/sessions/${id}/fork`, t, { at: { seq: events.at(-1)!.seq } }),
      201,
    )
    expect(fork.status).toBe('idle')
    expect(await executions(t, fork.id)).toEqual([expect.objectContaining({ status: 'interrupted' })])
    // Nothing waits in the fork: its question belonged to an execution that no longer runs.
    expect(await pending(t, fork.id)).toEqual([])
    await refused(target.call('POST', `/sessions/${fork.id}/pending/${question.id}`, t, answerOf(question)), 409, 'not-waiting')
    await refused(target.call('POST', `/sessions/${fork.id}/abort`, t), 409)
    expect(await status(t, fork.id)).toBe('idle')

    // Resume: the interrupted execution runs again, asks again (a live question), and ends once answered.
    await json(target.call('POST', `/sessions/${fork.id}/resume`, t), 202)
    await waitFor(t, fork.id, ['waiting_input'])
    const [asked] = await pending(t, fork.id)
    expect(asked).toMatchObject({ kind: 'question' })
    expect((await driveToEnd(t, fork.id, 1)).map(e => e.status)).toEqual(['completed'])
    // A message starts the fork's next execution.
    await json(target.call('POST', `/sessions/${fork.id}/messages`, t, { text: 'Once more.' }), 202)
    expect((await driveToEnd(t, fork.id, 2)).map(e => e.status)).toEqual(['completed', 'completed'])

    // The original's question is still live there: its answer resumes the original's execution.
    await json(target.call('POST', `/sessions/${id}/pending/${question.id}`, t, answerOf(question)), 202)
    expect((await driveToEnd(t, id, 1)).map(e => e.status)).toEqual(['completed'])
    // Answered once: a second answer is refused, not acknowledged again.
    await refused(target.call('POST', `/sessions/${id}/pending/${question.id}`, t, answerOf(question)), 409, 'not-waiting')
  })

  it('a closed session refuses every 202 route with 409, its question included; reopened, the question is live again', async () => {
    const t = await target.token('ana')
    const { id, question } = await waiting(t)
    await json(target.call('POST', `/sessions/${id}/close`, t), 200)
    await refused(target.call('POST', `/sessions/${id}/messages`, t, { text: 'hello?' }), 409, 'closed')
    await refused(target.call('POST', `/sessions/${id}/pending/${question.id}`, t, answerOf(question)), 409, 'closed')
    await refused(target.call('POST', `/sessions/${id}/resume`, t), 409)
    await refused(target.call('POST', `/sessions/${id}/abort`, t), 409)
    expect(await status(t, id)).toBe('closed')
    await json(target.call('POST', `/sessions/${id}/reopen`, t), 200)
    await waitFor(t, id, ['waiting_input'])
    await json(target.call('POST', `/sessions/${id}/pending/${question.id}`, t, answerOf(question)), 202)
    expect((await driveToEnd(t, id, 1)).map(e => e.status)).toEqual(['completed'])
  })

  it('after a revert of an execution, a message starts the next one and the other 202 routes are refused', async () => {
    const t = await target.token('ana')
    const id = await newSession(t, 'appendix')
    await json(target.call('POST', `/sessions/${id}/messages`, t, { text: 'Write the appendix.' }), 202)
    const [first] = await driveToEnd(t, id, 1)
    expect(first.status).toBe('completed')
    await json(target.call('POST', `/sessions/${id}/executions/${first.id}/revert`, t), 200)
    await refused(target.call('POST', `/sessions/${id}/resume`, t), 409)
    await refused(target.call('POST', `/sessions/${id}/abort`, t), 409)
    await refused(target.call('POST', `/sessions/${id}/pending/${first.id}-p1`, t, { answer: 'x' }), 409)
    expect(await pending(t, id)).toEqual([])
    await json(target.call('POST', `/sessions/${id}/messages`, t, { text: 'Again, please.' }), 202)
    // It ran (the scripted follow-up fails without the appendix the revert removed: an ended run either way).
    expect((await driveToEnd(t, id, 2)).map(e => e.status)).toEqual(['completed', expect.stringMatching(/^(completed|failed)$/)])
  })
}
