import { afterEach, describe, expect, it } from 'vitest'
import { readEvents, readExecution, runTask, type ExecutionDelta, type ExecutionEvent } from '../../src/agent/index.js'
import { fakeOpenAi, type FakeReply, type FakeRequest } from '../agent/fake-openai.js'
import { PROVIDERS } from '../agent/providers.js'
import { freshRun } from '../agent/workspace.js'

// Real provider packages (`@ai-sdk/openai` 4, `@ai-sdk/anthropic` 4, `@ai-sdk/openai-compatible` 3)
// and this library's v2 adapter, against a local server speaking each wire format, whole and streamed.

let close: (() => Promise<void>) | undefined
afterEach(async () => {
  await close?.()
  close = undefined
})

async function serve(reply: (req: FakeRequest, n: number) => FakeReply | Promise<FakeReply>) {
  const fake = await fakeOpenAi(reply)
  close = fake.close
  return fake
}

const writeCall = { id: 'call_1', name: 'write_file', input: { path: '/work/hello.md', content: 'hi' } }
const ANSWER = 'Wrote /work/hello.md with a greeting in it.'

/** The error body each API sends. */
const errorBody = (api: string, message: string, type = 'rate_limit_error') =>
  api === 'messages' ? { type: 'error', error: { type, message } } : { error: { message, type } }

for (const p of PROVIDERS) {
  for (const stream of [false, true]) {
    describe(`${p.name} (${p.version}), ${stream ? 'doStream' : 'doGenerate'}`, () => {
      it('runs tool calls over several steps and reads usage and finish reasons into one shape', async () => {
        const fake = await serve((_req, n) =>
          n === 0
            ? { toolCalls: [writeCall], usage: { input: 100, output: 20, cached: 40, reasoning: 8 } }
            : { reasoning: 'The file is written.', text: ANSWER, usage: { input: 150, output: 30, cached: 100, reasoning: 12 } },
        )
        const { run } = await freshRun()
        const deltas: ExecutionDelta[] = []
        const r = await runTask({
          vfs: run,
          instructions: 'Say hi in a file.',
          model: p.make(fake.baseURL),
          stream,
          onDelta: d => deltas.push(d),
        })
        expect(r).toMatchObject({ status: 'completed', result: ANSWER, modelCalls: 2 })
        expect(await run.readFile('/work/hello.md', 'utf8')).toBe('hi')
        expect(fake.requests.map(q => [q.api, q.body.stream ?? false])).toEqual([
          [p.api, stream],
          [p.api, stream],
        ])
        // The second request carries the tool's result in the provider's own format.
        expect(JSON.stringify(p.toolResults(fake.requests[1]))).toMatch(/Created \/work\/hello.md/)

        const events = await readEvents(run, r.executionId)
        const calls = events.filter((e): e is Extract<ExecutionEvent, { type: 'model-call' }> => e.type === 'model-call')
        expect(calls.map(c => [c.call, c.finishReason, c.retries, c.streamed])).toEqual([
          [1, 'tool-calls', 0, stream],
          [2, 'stop', 0, stream],
        ])
        const details = (cached: number, reasoning: number) => ({
          ...(p.reports.cached ? { cachedInputTokens: cached } : {}),
          ...(p.reports.reasoning ? { reasoningTokens: reasoning } : {}),
        })
        expect(calls[0].usage).toEqual({ inputTokens: 100, outputTokens: 20, totalTokens: 120, ...details(40, 8) })
        expect(calls[1].usage).toEqual({ inputTokens: 150, outputTokens: 30, totalTokens: 180, ...details(100, 12) })
        expect(r.usage).toEqual({ inputTokens: 250, outputTokens: 50, totalTokens: 300, ...details(140, 20) })
        expect((await readExecution(run, r.executionId))!.usage).toEqual(r.usage)

        const text = events.find(e => e.type === 'text') as Extract<ExecutionEvent, { type: 'text' }>
        expect(text.text).toBe(ANSWER)
        if (p.readsReasoning) expect(events.find(e => e.type === 'reasoning')).toMatchObject({ text: 'The file is written.' })
        if (stream) {
          // The text arrived in pieces (4 characters each) before the durable event, under its stream id.
          const pieces = deltas.filter(d => d.kind === 'text')
          expect(pieces.length).toBeGreaterThan(5)
          expect(pieces.every(d => d.streamId === text.streamId && d.executionId === r.executionId)).toBe(true)
          expect(pieces.reduce((t, d) => t.slice(0, d.at) + d.delta, '')).toBe(ANSWER)
        } else {
          expect(deltas).toEqual([])
          expect(text.streamId).toBeUndefined()
        }
      })

      it('retries a 429 after its retry-after and counts the retry', async () => {
        const fake = await serve((_req, n) =>
          n === 0
            ? { status: 429, headers: { 'retry-after-ms': '120', 'retry-after': '1' }, body: errorBody(p.api, 'slow down') }
            : { text: 'ok' },
        )
        const { run } = await freshRun()
        const r = await runTask({ vfs: run, instructions: 'x', model: p.make(fake.baseURL), stream })
        expect(r).toMatchObject({ status: 'completed', result: 'ok', modelCalls: 1 })
        expect(fake.requests).toHaveLength(2)
        // The provider's wait was honoured (retry-after-ms before retry-after).
        expect(fake.requests[1].at - fake.requests[0].at).toBeGreaterThanOrEqual(110)
        const events = await readEvents(run, r.executionId)
        expect(events.filter(e => e.type === 'model-retry')).toEqual([
          expect.objectContaining({ call: 1, attempt: 1, delayMs: 120, statusCode: 429, message: expect.stringMatching(/slow down/) }),
        ])
        expect(events.find(e => e.type === 'model-call')).toMatchObject({ retries: 1 })
        expect((await readExecution(run, r.executionId))!.modelRetries).toBe(1)
      })

      it('does not retry a 400; the error is a model-error event and the run ends within its bounds', async () => {
        const fake = await serve(() => ({ status: 400, body: errorBody(p.api, 'bad request: unknown field', 'invalid_request_error') }))
        const { run } = await freshRun()
        const r = await runTask({ vfs: run, instructions: 'x', model: p.make(fake.baseURL), stream, limits: { maxIdleWindows: 2 } })
        expect(r).toMatchObject({ status: 'failed', error: { code: 'no-progress' }, modelCalls: 0 })
        expect(fake.requests).toHaveLength(2) // one per window, none retried
        const errors = (await readEvents(run, r.executionId)).filter(e => e.type === 'error')
        expect(errors[0]).toMatchObject({ code: 'model-error', message: expect.stringMatching(/unknown field/) })
      })

      it('an abort ends the request on the wire and the run as interrupted', async () => {
        const controller = new AbortController()
        const fake = await serve(() => {
          // Whole answers never come; streamed ones come slowly, and the abort lands after the first piece.
          if (!stream) {
            setTimeout(() => controller.abort(), 50)
            return { hang: true }
          }
          return { text: 'a long answer that takes its time to arrive', chunkChars: 2, chunkDelayMs: 40 }
        })
        const { run } = await freshRun()
        const deltas: ExecutionDelta[] = []
        const r = await runTask({
          vfs: run,
          instructions: 'x',
          model: p.make(fake.baseURL),
          stream,
          signal: controller.signal,
          onDelta: d => {
            deltas.push(d)
            controller.abort()
          },
        })
        expect(r.status).toBe('interrupted')
        await expect.poll(() => fake.requests[0].aborted).toBe(true)
        expect(fake.requests).toHaveLength(1)
        if (stream) expect(deltas.at(-1)).toMatchObject({ kind: 'text', discarded: true, delta: '' })
        expect((await readEvents(run, r.executionId)).some(e => e.type === 'text')).toBe(false)
      })
    })
  }
}
