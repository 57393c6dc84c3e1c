import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import {
  anthropicBody,
  anthropicEvents,
  chatBody,
  chatEvents,
  responsesBody,
  responsesEvents,
  type FakeTurn,
  type WireEvent,
} from './fake-wire.js'

export type { FakeTurn } from './fake-wire.js'

/** Which API a request spoke: OpenAI chat completions, OpenAI responses, Anthropic messages. */
export type FakeApi = 'chat' | 'responses' | 'messages'

/** A request the fake endpoint received. */
export interface FakeRequest {
  api: FakeApi
  headers: Record<string, string | string[] | undefined>
  body: {
    model: string
    stream?: boolean
    messages: Array<Record<string, unknown>>
    /** The responses API's prompt. */
    input?: Array<Record<string, unknown>>
    tools?: Array<{ function: { name: string; parameters: unknown } }>
    [key: string]: unknown
  }
  /** When the server read the request (ms since the epoch). */
  at: number
  /** Set once the client closed the connection before the answer ended (an aborted request). */
  aborted: boolean
}

/** An error answer (a status other than 200, with headers such as `retry-after`). */
export interface FakeFailure {
  status: number
  body?: unknown
  headers?: Record<string, string>
}

/**
 * What `reply` may return: a chat-completions body (`completion(...)`), a {@link FakeTurn} (said in
 * the format the request asked for, streamed when it asked for a stream), a {@link FakeFailure}, or
 * `{ hang: true }`: the answer never comes (until the client aborts).
 */
export type FakeReply = ReturnType<typeof completion> | FakeTurn | FakeFailure | { hang: true }

const ROUTES: Record<string, FakeApi> = { '/v1/chat/completions': 'chat', '/v1/responses': 'responses', '/v1/messages': 'messages' }

/**
 * A local stand-in for model APIs on 127.0.0.1: OpenAI's `/v1/chat/completions` and
 * `/v1/responses`, Anthropic's `/v1/messages`, each whole or as server-sent events (`stream: true`),
 * in the wire format of each. `reply` turns each request into its answer.
 */
export async function fakeOpenAi(
  reply: (req: FakeRequest, n: number) => FakeReply | Promise<FakeReply>,
): Promise<{ baseURL: string; requests: FakeRequest[]; close(): Promise<void> }> {
  const requests: FakeRequest[] = []
  const server: Server = createServer((req, res) => {
    let data = ''
    req.on('data', c => (data += c))
    req.on('end', () => {
      const api = ROUTES[req.url ?? '']
      if (!api || req.method !== 'POST') {
        res.writeHead(404).end('not found')
        return
      }
      const r: FakeRequest = { api, headers: req.headers, body: JSON.parse(data), at: Date.now(), aborted: false }
      res.on('close', () => (r.aborted ||= !res.writableFinished))
      requests.push(r)
      void Promise.resolve(reply(r, requests.length - 1)).then(out => answer(r, out, res))
    })
  })
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    requests,
    close: () =>
      new Promise(resolve => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}

async function answer(r: FakeRequest, out: FakeReply, res: import('node:http').ServerResponse): Promise<void> {
  if ('hang' in out) return
  if ('status' in out && typeof out.status === 'number') {
    res.writeHead(out.status, { 'content-type': 'application/json', ...out.headers }).end(JSON.stringify(out.body ?? {}))
    return
  }
  const model = r.body.model
  const legacy = 'choices' in out
  const turn = (legacy ? {} : out) as FakeTurn
  if (!r.body.stream) {
    const body = legacy
      ? out
      : r.api === 'chat'
        ? chatBody(turn, model)
        : r.api === 'responses'
          ? responsesBody(turn, model)
          : anthropicBody(turn, model)
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body))
    return
  }
  const events: WireEvent[] =
    r.api === 'chat'
      ? chatEvents(legacy ? (out as ReturnType<typeof chatBody>) : chatBody(turn, model), turn)
      : r.api === 'responses'
        ? responsesEvents(turn, model)
        : anthropicEvents(turn, model)
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' })
  res.flushHeaders()
  if (turn.firstDelayMs) await new Promise(resolve => setTimeout(resolve, turn.firstDelayMs))
  for (const e of events) {
    if (e.delayMs) await new Promise(resolve => setTimeout(resolve, e.delayMs))
    if (res.destroyed) return
    res.write(`${e.event ? `event: ${e.event}\n` : ''}data: ${JSON.stringify(e.data)}\n\n`)
  }
  if (r.api === 'chat') res.write('data: [DONE]\n\n')
  res.end()
}

/** A chat-completions response body. */
export function completion(
  message: { content?: string | null; tool_calls?: unknown[] },
  finish = message.tool_calls ? 'tool_calls' : 'stop',
) {
  return {
    id: 'x',
    object: 'chat.completion',
    model: 'm',
    choices: [{ index: 0, message: { role: 'assistant', content: null, ...message }, finish_reason: finish }],
    usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
  }
}
