import { readUIMessageStream, type DynamicToolUIPart, type UIMessage, type UIMessageChunk } from 'ai'
import { expect, it } from 'vitest'
import { scriptAppendixProfile } from '../../fixtures/script-appendix/profile.js'
import { APPENDIX_INSTRUCTIONS } from '../../fixtures/script-appendix/task.js'
import { SessionChatTransport } from '../../src/ai-sdk-ui/index.js'
import { createSessionClient } from '../../src/client/index.js'
import { memoryStore } from '../../src/index.js'
import { createSessionApp, createSessionHost, mintToken } from '../../src/session/index.js'
import { season } from '../session/harness.js'

// SessionChatTransport chunk by chunk, read by the AI SDK's own readUIMessageStream (what useChat
// runs), against a real session host: the appendix job's question, the answer, its approval, the
// decision, to the end. test/browser/ai-sdk-ui.test.ts runs the same job through useChat in Chromium.

/** Tees a reply: its chunks, and the message the AI SDK builds from them (continuing `message`). */
async function read(stream: ReadableStream<UIMessageChunk>, message?: UIMessage) {
  const [mine, theirs] = stream.tee()
  const chunks: UIMessageChunk[] = []
  const collect = (async () => {
    for await (const c of mine as unknown as AsyncIterable<UIMessageChunk>) chunks.push(c)
  })()
  let last: UIMessage | undefined
  for await (const m of readUIMessageStream({ stream: theirs, ...(message ? { message } : {}), terminateOnError: true })) last = m
  await collect
  return { chunks, message: structuredClone(last!) }
}
const tools = (m: UIMessage) => m.parts.filter((p): p is DynamicToolUIPart => p.type === 'dynamic-tool')
const user = (text: string): UIMessage => ({ id: 'u1', role: 'user', parts: [{ type: 'text', text }] })

it('a reply as UI message chunks: a question, text deltas, an approval, then the end', async () => {
  const secret = 'node-secret-node-secret-node-secret-0123'
  const host = createSessionHost({
    store: memoryStore(),
    agents: { asking: scriptAppendixProfile({ askFirst: true, approveRunJs: true, stream: { chunkChars: 6, chunkDelayMs: 10 } }) },
  })
  const app = createSessionApp(host, { auth: { secret }, heartbeatMs: 200 })
  const client = createSessionClient({
    baseUrl: 'http://in-process.test',
    token: await mintToken(secret, 'ana'),
    fetch: (input, init) => Promise.resolve(app.fetch(new Request(input, init))),
  })
  try {
    const { id } = await client.api.createSession({ body: { profile: 'asking' } })
    await client.upload(
      id,
      Object.entries(season()).map(([path, data]) => ({ path, data })),
    )
    const transport = new SessionChatTransport({ client })
    const send = (messages: UIMessage[]) =>
      transport.sendMessages({ trigger: 'submit-message', chatId: id, messageId: undefined, messages, abortSignal: undefined })

    // 1. The task: the reply ends at the question, the ask_user part, whose toolCallId is the pending id.
    const first = await read(await send([user(APPENDIX_INSTRUCTIONS)]))
    expect(first.chunks.map(c => c.type)).toEqual(['start', 'tool-input-available', 'finish'])
    const [question] = tools(first.message)
    expect(question).toMatchObject({ toolName: 'ask_user', state: 'input-available', toolMetadata: { pendingId: question!.toolCallId } })
    expect((await client.api.listPending({ params: { id } })).map(p => p.id)).toEqual([question!.toolCallId])
    expect(transport.sendAutomaticallyWhen({ messages: [user(APPENDIX_INSTRUCTIONS), first.message] })).toBe(false)

    // 2. The answer (what addToolOutput does to the part): sent, and the reply goes on to the approval.
    const answered = structuredClone(first.message)
    Object.assign(tools(answered)[0]!, { state: 'output-available', output: { answer: 'Season One' } })
    const history = [user(APPENDIX_INSTRUCTIONS), answered]
    expect(transport.sendAutomaticallyWhen({ messages: history })).toBe(true)
    const second = await read(await send(history), answered)
    const types = second.chunks.map(c => c.type)
    // The plan's text streamed in pieces (the host coalesces them per 25 ms), then closed by the stored text.
    expect(types.filter(t => t === 'text-delta').length).toBeGreaterThan(1)
    expect(types.at(-2)).toBe('tool-approval-request')
    expect(tools(second.message)[0]).toMatchObject({ toolName: 'ask_user', state: 'output-available', toolMetadata: { answered: true } })
    const approval = tools(second.message).find(p => p.state === 'approval-requested')!
    expect(approval).toMatchObject({ toolName: 'run_js', approval: { id: (await client.api.listPending({ params: { id } }))[0]!.id } })
    expect(transport.sendAutomaticallyWhen({ messages: [user(APPENDIX_INSTRUCTIONS), second.message] })).toBe(false)

    // 3. The decision (what addToolApprovalResponse does): `always`, and the reply runs to the end.
    const decided = structuredClone(second.message)
    Object.assign(
      tools(decided).find(p => p.toolCallId === approval.toolCallId)!,
      {
        state: 'approval-responded',
        approval: { id: approval.approval!.id, approved: true, reason: 'always' },
      },
    )
    const third = await read(await send([user(APPENDIX_INSTRUCTIONS), decided]), decided)
    expect(third.chunks.at(-1)).toEqual({ type: 'finish' })
    expect(tools(third.message).every(p => p.state === 'output-available' || p.state === 'output-error')).toBe(true)
    expect(tools(third.message).map(p => p.toolName)).toContain('submit_result')
    expect((await client.api.getSession({ params: { id } })).status).toBe('idle')
    // Nothing runs: a reconnect finds no reply to resume.
    expect(await transport.reconnectToStream({ chatId: id })).toBeNull()
  } finally {
    await host.stop()
  }
}, 120_000)
