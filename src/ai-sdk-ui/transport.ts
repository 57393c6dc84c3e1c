import { eventPages, SessionApiError, type SessionClient, type SessionEvent } from 'agent-vfs/client'
import type { ChatTransport, UIMessage, UIMessageChunk } from 'ai'
import { unsentAnswers } from './answers.js'
import { replyStream, type ReplyBounds } from './reply-stream.js'

/** Options of {@link SessionChatTransport}. */
export interface SessionChatTransportOptions {
  /** The client of the session API (`createSessionClient` of agent-vfs/client). */
  client: SessionClient
  /** The session a chat talks to. Default: the chat's id is the session's id (`useChat({ id: sessionId, … })`). */
  sessionId?: (chatId: string) => string | Promise<string>
  /** Stream the reply's text as the model writes it (`live` deltas). Default true. */
  live?: boolean
}

/**
 * The AI SDK's `ChatTransport` (AI SDK 5 and later; `useChat({ transport })`) over a session: a
 * user's message is sent to the session, and its reply streams back as UI message chunks — text as
 * it is written, tool calls as dynamic tool parts, approvals as tool approval requests, questions as
 * the `ask_user` tool part. Answers given with `addToolApprovalResponse` / `addToolOutput` are sent
 * to the session by the next request (`sendAutomaticallyWhen: transport.sendAutomaticallyWhen`).
 * `resume: true` reconnects to a reply still running after a reload (replayed from its start).
 */
export class SessionChatTransport<UI_MESSAGE extends UIMessage = UIMessage> implements ChatTransport<UI_MESSAGE> {
  /** A reconnect replays the reply from its first event. */
  readonly resumeStreamIsReplay = true
  /** The last stored event streamed per session: where the next reply starts observing. */
  private readonly seen = new Map<string, number>()

  constructor(private readonly options: SessionChatTransportOptions) {}

  /** True when the last assistant message holds answers the session has not been sent: pass it to `useChat`. */
  sendAutomaticallyWhen = ({ messages }: { messages: UI_MESSAGE[] }): boolean => unsentAnswers(messages).length > 0

  sendMessages: ChatTransport<UI_MESSAGE>['sendMessages'] = async ({ chatId, messages, abortSignal, trigger }) => {
    const sessionId = await this.sessionOf(chatId)
    const { client } = this.options
    const after = this.seen.get(sessionId) ?? 0
    const last = messages.at(-1)
    if (trigger === 'regenerate-message' || !last)
      throw new SessionApiError(0, 'invalid', 'a session cannot regenerate a reply: send a new message instead')
    if (last.role === 'user') {
      const text = last.parts.flatMap(p => (p.type === 'text' ? [p.text] : [])).join('\n')
      const sent = await client.api.sendMessage({ params: { id: sessionId }, body: { text } })
      return this.stream(sessionId, abortSignal, { after, startsAt: e => e.type === 'message' && e.n === sent.n, endsFrom: 0 })
    }
    const answers = unsentAnswers(messages)
    if (answers.length === 0) return (await this.replay(sessionId, abortSignal)) ?? emptyReply()
    for (const answer of answers) await answerOnce(client, sessionId, answer.pendingId, answer.body)
    const lastAnswer = answers.at(-1)!.pendingId
    return this.stream(sessionId, abortSignal, {
      after,
      startsAt: e => e.type === 'pending-answered' && e.pendingId === lastAnswer,
      endsFrom: 0,
      carried: answers,
    })
  }

  reconnectToStream: ChatTransport<UI_MESSAGE>['reconnectToStream'] = async ({ chatId, abortSignal }) =>
    this.replay(await this.sessionOf(chatId), abortSignal)

  /**
   * The session's current reply from its first event, when one is running or waits for a person
   * (its questions and approvals can then be answered after a reload); null when the session is idle.
   */
  private async replay(sessionId: string, signal: AbortSignal | undefined): Promise<ReadableStream<UIMessageChunk> | null> {
    const { status } = await this.options.client.api.getSession({ params: { id: sessionId } })
    if (status === 'idle' || status === 'closed') return null
    const { message, lastStatus } = await this.findReply(sessionId, signal)
    if (!message) return null
    return this.stream(sessionId, signal, { after: message.seq - 1, startsAt: () => true, endsFrom: lastStatus })
  }

  /** The last person's message and the last status event in the log. */
  private async findReply(sessionId: string, signal: AbortSignal | undefined) {
    let message: SessionEvent | undefined
    let lastStatus = 0
    for await (const page of eventPages(this.options.client, sessionId, signal ? { signal } : {})) {
      for (const event of page) {
        if (event.type === 'message') message = event
        if (event.type === 'status') lastStatus = event.seq
      }
    }
    return { message, lastStatus }
  }

  private stream(sessionId: string, signal: AbortSignal | undefined, bounds: ReplyBounds) {
    const onSeq = (seq: number) => this.seen.set(sessionId, Math.max(seq, this.seen.get(sessionId) ?? 0))
    return replyStream({ client: this.options.client, sessionId, live: this.options.live ?? true, signal, onSeq }, bounds)
  }

  private async sessionOf(chatId: string): Promise<string> {
    return this.options.sessionId ? await this.options.sessionId(chatId) : chatId
  }
}

/** Answers a pending action; one answered already (another tab, a retried request) is no failure. */
async function answerOnce(
  client: SessionClient,
  sessionId: string,
  pendingId: string,
  body: { answer: string } | { decision: 'approve' | 'always' | 'deny'; message?: string },
) {
  try {
    await client.api.answerPending({ params: { id: sessionId, pendingId }, body })
  } catch (error) {
    if (!(error instanceof SessionApiError && error.code === 'conflict')) throw error
  }
}

function emptyReply(): ReadableStream<UIMessageChunk> {
  return new ReadableStream({
    start(controller) {
      controller.enqueue({ type: 'start' })
      controller.enqueue({ type: 'finish' })
      controller.close()
    },
  })
}
