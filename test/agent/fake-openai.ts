import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'

/** A request the fake endpoint received. */
export interface FakeRequest {
  headers: Record<string, string | string[] | undefined>
  body: {
    model: string
    messages: Array<Record<string, unknown>>
    tools?: Array<{ function: { name: string; parameters: unknown } }>
  }
}

/**
 * A local stand-in for an OpenAI-compatible `/v1/chat/completions` endpoint on 127.0.0.1: `reply`
 * turns each request into the response body (or `{ status, body }` for an error).
 */
export async function fakeOpenAi(
  reply: (req: FakeRequest, n: number) => unknown,
): Promise<{ baseURL: string; requests: FakeRequest[]; close(): Promise<void> }> {
  const requests: FakeRequest[] = []
  const server: Server = createServer((req, res) => {
    let data = ''
    req.on('data', c => (data += c))
    req.on('end', () => {
      if (req.url !== '/v1/chat/completions' || req.method !== 'POST') {
        res.writeHead(404).end('not found')
        return
      }
      const r: FakeRequest = { headers: req.headers, body: JSON.parse(data) }
      requests.push(r)
      const out = reply(r, requests.length - 1) as { status?: number; body?: unknown }
      if (out && typeof out.status === 'number')
        res.writeHead(out.status, { 'content-type': 'application/json' }).end(JSON.stringify(out.body))
      else res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(out))
    })
  })
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return { baseURL: `http://127.0.0.1:${port}/v1`, requests, close: () => new Promise(resolve => server.close(() => resolve())) }
}

/** A chat-completions response body. */
export function completion(
  message: { content?: string | null; tool_calls?: unknown[] },
  finish = message.tool_calls ? 'tool_calls' : 'stop',
) {
  return {
    id: 'x',
    object: 'chat.completion',
    choices: [{ index: 0, message: { role: 'assistant', content: null, ...message }, finish_reason: finish }],
    usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
  }
}
