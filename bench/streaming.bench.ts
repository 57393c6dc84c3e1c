/**
 * Streaming text (issue 19): a real provider package (`@ai-sdk/openai` 4, responses API) against
 * the local fake model server, which waits `FIRST_MS` and then streams a 1,000-token reply; a
 * Node session host serving the HTTP API; an SSE client (`?live=1`) in a process of its own.
 *
 * - `streaming.ttft`: time from the model call's start to the first live delta at the client, vs the
 *   model's own first-chunk time (its first text part as the runner reads it). Target ratio ≤ 1.2.
 * - `streaming.turn.commits`: store commits of one turn with a 1,000-token streamed reply, vs the
 *   same turn generated whole (`doGenerate`): live text is never stored, so they match.
 * - `streaming.turn.live-messages`: delta messages the client got, vs the model's 1,000 pieces.
 *
 * Run: `npm run bench -- streaming` (or `node --conditions=agent-vfs:source --import tsx bench/streaming.bench.ts`).
 */
import { fork } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { createOpenAI } from '@ai-sdk/openai'
import { memoryStore, type VfsStore } from 'agent-vfs'
import type { LanguageModel } from 'agent-vfs/agent'
import { createSessionApp, createSessionHost, mintToken } from 'agent-vfs/session'
import { fakeOpenAi } from '../test/agent/fake-openai.js'
import { listen, readSse } from '../test/session/http-client.js'
import { Results, size, smoke, wanted, wantedAny } from './harness.js'

const TOKENS = size(1000, 50)
const FIRST_MS = 150
const ROUNDS = size(5, 1)
const REPLY = Array.from({ length: TOKENS }, (_, i) => `t${String(i % 100).padStart(2, '0')} `).join('')

/** The client process: one SSE stream, reporting when the first delta and the end arrived. */
async function client(): Promise<void> {
  process.on('message', async (m: { url: string; token: string }) => {
    const res = await fetch(m.url, { headers: { authorization: `Bearer ${m.token}` } })
    let first: number | undefined
    let deltas = 0
    let chars = 0
    process.send!({ ready: true })
    await readSse(res, msg => {
      if (msg.event === 'delta') {
        first ??= Date.now()
        deltas++
        chars += (JSON.parse(msg.data!) as { delta: string }).delta.length
      }
      return msg.event === 'execution-end'
    })
    process.send!({ first, deltas, chars })
  })
}

/** The model, timing its own first text part and the start of each call. */
function timed(model: LanguageModel, stream: boolean, times: { start?: number; first?: number }): LanguageModel {
  const doStream = model.doStream!.bind(model)
  return {
    specificationVersion: model.specificationVersion,
    provider: model.provider,
    modelId: model.modelId,
    supportedUrls: model.supportedUrls,
    doGenerate: o => ((times.start = Date.now()), model.doGenerate(o)),
    ...(stream
      ? {
          doStream: async o => {
            times.start = Date.now()
            times.first = undefined
            const r = await doStream(o)
            const mark = new TransformStream<unknown, unknown>({
              transform(part, c) {
                if ((part as { type?: string }).type === 'text-delta') times.first ??= Date.now()
                c.enqueue(part)
              },
            })
            return { ...r, stream: r.stream.pipeThrough(mark) }
          },
        }
      : {}),
  }
}

async function main(): Promise<void> {
  const fake = await fakeOpenAi(() => ({
    text: REPLY,
    chunkChars: 4,
    chunkDelayMs: 1,
    firstDelayMs: FIRST_MS,
    usage: { input: 50, output: TOKENS },
  }))
  const commits: string[] = []
  const base = memoryStore()
  const store: VfsStore = { ...base, commit: (ns, scope, ops) => (commits.push(scope), base.commit(ns, scope, ops)) }
  const times: { start?: number; first?: number } = {}
  const openai = createOpenAI({ baseURL: fake.baseURL, apiKey: 'sk-bench' })
  const host = createSessionHost({
    store,
    agents: {
      streamed: { setup: () => ({ model: timed(openai('gpt-bench'), true, times) }) },
      generated: { setup: () => ({ model: timed(openai('gpt-bench'), false, times) }) },
    },
    pollMs: 50,
  })
  const secret = 'bench-secret-bench-secret-bench-secret-01'
  const server = await listen(createSessionApp(host, { auth: { secret } }).fetch)
  const token = await mintToken(secret, 'bench')
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' }
  const child = fork(fileURLToPath(import.meta.url), ['--child'], {
    execArgv: process.execArgv,
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  })
  type Seen = { ready?: true; first?: number; deltas?: number; chars?: number }
  const next = () => new Promise<Seen>(resolve => child.once('message', resolve as never))

  /** One turn: a session, the client's stream, a message; resolves when the client saw the end. */
  const turn = async (profile: string) => {
    const { id } = (await (
      await fetch(`${server.url}/sessions`, { method: 'POST', headers, body: JSON.stringify({ profile }) })
    ).json()) as { id: string }
    child.send({ url: `${server.url}/sessions/${id}/stream?live=1`, token })
    await next() // the stream is open
    const before = commits.length
    await fetch(`${server.url}/sessions/${id}/messages`, { method: 'POST', headers, body: JSON.stringify({ text: 'talk' }) })
    const seen = await next()
    await host.settled(id)
    return {
      first: seen.first!,
      deltas: seen.deltas!,
      chars: seen.chars!,
      commits: commits.length - before,
      start: times.start!,
      modelFirst: times.first,
    }
  }

  const ttft: number[] = []
  const own: number[] = []
  let streamed: Awaited<ReturnType<typeof turn>> | undefined
  for (let i = 0; i < ROUNDS; i++) {
    streamed = await turn('streamed')
    if (streamed.chars !== REPLY.length) throw new Error(`the client got ${streamed.chars} characters of ${REPLY.length}`)
    ttft.push(streamed.first - streamed.start)
    own.push(streamed.modelFirst! - streamed.start)
  }
  const generated = await turn('generated')
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]
  const results = new Results('streaming.json')
  // One set of turns gives every row; the filter picks which are recorded.
  const add: Results['add'] = m => (wanted(m.name) ? results.add(m) : { ...m, ratio: m.ours / m.baseline })
  add({
    name: 'streaming.ttft',
    unit: 'ms',
    better: 'lower',
    ours: median(ttft),
    baseline: median(own),
    target: 'ratio <= 1.2',
    baselineLabel: `the model's own first text part after the call's start (@ai-sdk/openai 4 responses, fake server: first token after ${FIRST_MS} ms), median of ${ROUNDS}`,
  })
  add({
    name: 'streaming.turn.commits',
    unit: 'commits',
    better: 'lower',
    ours: streamed!.commits,
    baseline: generated.commits,
    target: 'ratio <= 1',
    baselineLabel: `the same turn (${TOKENS}-token reply) generated whole with doGenerate`,
  })
  add({
    name: 'streaming.turn.live-messages',
    unit: 'messages',
    better: 'lower',
    ours: streamed!.deltas,
    baseline: TOKENS,
    baselineLabel: `the model's ${TOKENS} text pieces (one token each), coalesced into SSE delta messages`,
  })
  if (smoke) console.log('(smoke) streaming bench ran end to end')
  child.kill()
  await host.stop()
  await server.close()
  await fake.close()
}

if (process.argv.includes('--child')) void client()
// The filter selects none of this suite's rows (`npm run bench -- runjs`): start nothing.
else if (wantedAny('streaming'))
  await main().catch(error => {
    console.error(error)
    process.exit(1)
  })
