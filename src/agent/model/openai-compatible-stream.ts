import type { FinishReason } from './model.js'

/** The v2 stream parts {@link chatCompletionParts} produces. */
export type ChatStreamPart =
  | { type: 'stream-start'; warnings: [] }
  | { type: 'text-start' | 'text-end' | 'reasoning-start' | 'reasoning-end'; id: string }
  | { type: 'text-delta' | 'reasoning-delta'; id: string; delta: string }
  | { type: 'tool-call'; toolCallId: string; toolName: string; input: string }
  | {
      type: 'finish'
      finishReason: FinishReason
      usage: { inputTokens: number | undefined; outputTokens: number | undefined; totalTokens: number | undefined }
    }
  | { type: 'error'; error: unknown }

interface Chunk {
  choices?: Array<{
    delta?: {
      content?: string | null
      /** DeepSeek, vLLM, llama.cpp: the reasoning of a thinking model. */
      reasoning_content?: string | null
      tool_calls?: Array<{ index?: number; id?: string; function?: { name?: string; arguments?: string } }>
    }
    finish_reason?: string | null
  }>
  usage?: { prompt_tokens?: number; completion_tokens?: number; total_tokens?: number } | null
}

/** Chat-completions `finish_reason` words as finish reasons. */
export const CHAT_FINISH: Record<string, FinishReason> = {
  stop: 'stop',
  tool_calls: 'tool-calls',
  length: 'length',
  content_filter: 'content-filter',
  function_call: 'tool-calls',
}

/**
 * Turns a chat-completions event stream (`data: {chunk}` lines, `data: [DONE]` at the end) into
 * v2 stream parts: text and reasoning as they arrive, each tool call whole once its arguments are
 * complete, usage from the last chunk (`stream_options.include_usage`).
 */
export function chatCompletionParts(body: ReadableStream<Uint8Array>, url: string): ReadableStream<ChatStreamPart> {
  const decoder = new TextDecoder()
  const calls = new Map<number, { id: string; name: string; args: string }>()
  const open = new Set<'text' | 'reasoning'>()
  let finishReason: FinishReason = 'interrupted'
  let usage: Chunk['usage'] = undefined
  let pending = ''
  let ended = false
  const reader = body.getReader()
  return new ReadableStream<ChatStreamPart>({
    start(controller) {
      controller.enqueue({ type: 'stream-start', warnings: [] })
    },
    async pull(controller) {
      const finish = () => {
        ended = true
        for (const kind of open) controller.enqueue({ type: `${kind}-end`, id: kind })
        for (const c of [...calls.entries()].sort((a, b) => a[0] - b[0]).map(e => e[1]))
          controller.enqueue({ type: 'tool-call', toolCallId: c.id, toolName: c.name, input: c.args || '{}' })
        controller.enqueue({
          type: 'finish',
          finishReason,
          usage: { inputTokens: usage?.prompt_tokens, outputTokens: usage?.completion_tokens, totalTokens: usage?.total_tokens },
        })
        controller.close()
      }
      const delta = (kind: 'text' | 'reasoning', text: string) => {
        if (!open.has(kind)) {
          open.add(kind)
          controller.enqueue({ type: `${kind}-start`, id: kind })
        }
        controller.enqueue({ type: `${kind}-delta`, id: kind, delta: text })
      }
      // One read of the body per pull: what it holds goes out before the next read.
      const { done, value } = await reader.read()
      if (done) return ended ? undefined : finish()
      pending += decoder.decode(value, { stream: true })
      const lines = pending.split('\n')
      pending = lines.pop() ?? ''
      for (const raw of lines) {
        const line = raw.trim()
        if (ended || !line.startsWith('data:')) continue
        const data = line.slice(5).trim()
        if (data === '[DONE]') return (void reader.cancel().catch(() => undefined), finish())
        let chunk: Chunk
        try {
          chunk = JSON.parse(data) as Chunk
        } catch {
          controller.enqueue({ type: 'error', error: new Error(`${url} streamed a chunk that is not JSON: ${data.slice(0, 200)}`) })
          continue
        }
        if (chunk.usage) usage = chunk.usage
        const choice = chunk.choices?.[0]
        if (!choice) continue
        if (choice.delta?.reasoning_content) delta('reasoning', choice.delta.reasoning_content)
        if (choice.delta?.content) delta('text', choice.delta.content)
        for (const tc of choice.delta?.tool_calls ?? []) {
          const index = tc.index ?? 0
          const call = calls.get(index) ?? { id: '', name: '', args: '' }
          if (tc.id) call.id = tc.id
          if (tc.function?.name) call.name += tc.function.name
          if (tc.function?.arguments) call.args += tc.function.arguments
          calls.set(index, call)
        }
        if (choice.finish_reason) finishReason = CHAT_FINISH[choice.finish_reason] ?? 'other'
      }
    },
    cancel(reason) {
      return reader.cancel(reason)
    },
  })
}
