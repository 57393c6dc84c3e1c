/**
 * What the fake model server (fake-openai.ts) says, in each provider's wire format: OpenAI chat
 * completions, OpenAI responses, Anthropic messages; whole JSON bodies and server-sent events.
 * The shapes follow the providers' API references (and what the AI SDK's parsers accept).
 */

/** One model turn, said the same way in every format. */
export interface FakeTurn {
  text?: string
  reasoning?: string
  toolCalls?: Array<{ id: string; name: string; input: unknown }>
  usage?: { input: number; output: number; cached?: number; reasoning?: number }
  /** Streams send text in pieces of this many characters (default 4). */
  chunkChars?: number
  /** Streams wait this long before each piece (default 0). */
  chunkDelayMs?: number
  /** Streams wait this long after the headers, before the first event: the model's time to first token. */
  firstDelayMs?: number
}

/** A server-sent event: its `event:` name (if the format names events) and data. */
export interface WireEvent {
  event?: string
  data: unknown
  /** Wait this long before sending it. */
  delayMs?: number
}

export const usageOf = (t: FakeTurn) => t.usage ?? { input: 10, output: 5 }

function pieces(text: string, t: FakeTurn): string[] {
  const size = Math.max(1, t.chunkChars ?? 4)
  const out: string[] = []
  for (let at = 0; at < text.length; at += size) out.push(text.slice(at, at + size))
  return out
}

/** A chat-completions body. */
export function chatBody(t: FakeTurn, model: string) {
  const u = usageOf(t)
  const toolCalls = t.toolCalls?.map(c => ({ id: c.id, type: 'function', function: { name: c.name, arguments: JSON.stringify(c.input) } }))
  return {
    id: 'chatcmpl-1',
    object: 'chat.completion',
    created: 1,
    model,
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: t.text ?? null,
          ...(t.reasoning ? { reasoning_content: t.reasoning } : {}),
          ...(toolCalls?.length ? { tool_calls: toolCalls } : {}),
        },
        finish_reason: toolCalls?.length ? 'tool_calls' : 'stop',
      },
    ],
    usage: chatUsage(u),
  }
}

const chatUsage = (u: ReturnType<typeof usageOf>) => ({
  prompt_tokens: u.input,
  completion_tokens: u.output,
  total_tokens: u.input + u.output,
  ...(u.cached !== undefined ? { prompt_tokens_details: { cached_tokens: u.cached } } : {}),
  ...(u.reasoning !== undefined ? { completion_tokens_details: { reasoning_tokens: u.reasoning } } : {}),
})

/** A chat-completions body as its stream of chunks (ends with the usage chunk; `[DONE]` is the server's). */
export function chatEvents(body: ReturnType<typeof chatBody>, t: FakeTurn): WireEvent[] {
  const base = { id: body.id, object: 'chat.completion.chunk', created: 1, model: body.model }
  const choice = body.choices[0]
  const delay = t.chunkDelayMs ?? 0
  const chunk = (delta: unknown, finish: string | null = null): WireEvent => ({
    data: { ...base, choices: [{ index: 0, delta, finish_reason: finish }] },
    delayMs: delay,
  })
  const out: WireEvent[] = [chunk({ role: 'assistant', content: '' })]
  const message = choice.message as { content: string | null; reasoning_content?: string; tool_calls?: Array<Record<string, unknown>> }
  for (const p of pieces(message.reasoning_content ?? '', t)) out.push(chunk({ reasoning_content: p }))
  for (const p of pieces(message.content ?? '', t)) out.push(chunk({ content: p }))
  for (const [index, c] of (message.tool_calls ?? []).entries()) out.push(chunk({ tool_calls: [{ index, ...c }] }))
  out.push(chunk({}, choice.finish_reason))
  out.push({ data: { ...base, choices: [], usage: body.usage } })
  return out
}

/** An OpenAI responses body. */
export function responsesBody(t: FakeTurn, model: string) {
  const u = usageOf(t)
  return {
    id: 'resp_1',
    object: 'response',
    created_at: 1,
    model,
    status: 'completed',
    error: null,
    incomplete_details: null,
    output: [
      ...(t.reasoning ? [{ type: 'reasoning', id: 'rs_1', summary: [{ type: 'summary_text', text: t.reasoning }] }] : []),
      ...(t.text
        ? [
            {
              type: 'message',
              id: 'msg_1',
              role: 'assistant',
              status: 'completed',
              content: [{ type: 'output_text', text: t.text, annotations: [] }],
            },
          ]
        : []),
      ...(t.toolCalls ?? []).map((c, i) => ({
        type: 'function_call',
        id: `fc_${i + 1}`,
        call_id: c.id,
        name: c.name,
        arguments: JSON.stringify(c.input),
        status: 'completed',
      })),
    ],
    usage: responsesUsage(u),
  }
}

const responsesUsage = (u: ReturnType<typeof usageOf>) => ({
  input_tokens: u.input,
  input_tokens_details: { cached_tokens: u.cached ?? 0 },
  output_tokens: u.output,
  output_tokens_details: { reasoning_tokens: u.reasoning ?? 0 },
  total_tokens: u.input + u.output,
})

/** An OpenAI responses turn as its event stream. */
export function responsesEvents(t: FakeTurn, model: string): WireEvent[] {
  const delay = t.chunkDelayMs ?? 0
  const ev = (type: string, data: Record<string, unknown>, delayMs = 0): WireEvent => ({ event: type, data: { type, ...data }, delayMs })
  const out: WireEvent[] = [ev('response.created', { response: { id: 'resp_1', created_at: 1, model } })]
  let index = 0
  if (t.reasoning) {
    const item = { type: 'reasoning', id: 'rs_1', summary: [] }
    out.push(ev('response.output_item.added', { output_index: index, item }))
    out.push(ev('response.reasoning_summary_part.added', { item_id: 'rs_1', output_index: index, summary_index: 0 }))
    for (const p of pieces(t.reasoning, t))
      out.push(ev('response.reasoning_summary_text.delta', { item_id: 'rs_1', output_index: index, summary_index: 0, delta: p }, delay))
    out.push(ev('response.reasoning_summary_part.done', { item_id: 'rs_1', output_index: index, summary_index: 0 }))
    out.push(
      ev('response.output_item.done', { output_index: index++, item: { ...item, summary: [{ type: 'summary_text', text: t.reasoning }] } }),
    )
  }
  if (t.text) {
    out.push(ev('response.output_item.added', { output_index: index, item: { type: 'message', id: 'msg_1' } }))
    for (const p of pieces(t.text, t))
      out.push(ev('response.output_text.delta', { item_id: 'msg_1', output_index: index, delta: p }, delay))
    out.push(ev('response.output_item.done', { output_index: index++, item: { type: 'message', id: 'msg_1' } }))
  }
  for (const [i, c] of (t.toolCalls ?? []).entries()) {
    const item = { type: 'function_call', id: `fc_${i + 1}`, call_id: c.id, name: c.name, arguments: '' }
    const args = JSON.stringify(c.input)
    out.push(ev('response.output_item.added', { output_index: index, item }))
    out.push(ev('response.function_call_arguments.delta', { item_id: item.id, output_index: index, delta: args }))
    out.push(ev('response.output_item.done', { output_index: index++, item: { ...item, arguments: args, status: 'completed' } }))
  }
  out.push(ev('response.completed', { response: { incomplete_details: null, usage: responsesUsage(usageOf(t)) } }))
  return out
}

/** An Anthropic messages body. */
export function anthropicBody(t: FakeTurn, model: string) {
  const u = usageOf(t)
  return {
    id: 'msg_1',
    type: 'message',
    role: 'assistant',
    model,
    content: [
      ...(t.reasoning ? [{ type: 'thinking', thinking: t.reasoning, signature: 'sig' }] : []),
      ...(t.text ? [{ type: 'text', text: t.text }] : []),
      ...(t.toolCalls ?? []).map(c => ({ type: 'tool_use', id: c.id, name: c.name, input: c.input })),
    ],
    stop_reason: t.toolCalls?.length ? 'tool_use' : 'end_turn',
    stop_sequence: null,
    usage: anthropicUsage(u),
  }
}

const anthropicUsage = (u: ReturnType<typeof usageOf>) => ({
  // Anthropic's input_tokens excludes the cache: the provider adds cache reads and writes back.
  input_tokens: u.input - (u.cached ?? 0),
  output_tokens: u.output,
  cache_read_input_tokens: u.cached ?? 0,
  cache_creation_input_tokens: 0,
})

/** An Anthropic messages turn as its event stream. */
export function anthropicEvents(t: FakeTurn, model: string): WireEvent[] {
  const delay = t.chunkDelayMs ?? 0
  const body = anthropicBody(t, model)
  const ev = (type: string, data: Record<string, unknown>, delayMs = 0): WireEvent => ({ event: type, data: { type, ...data }, delayMs })
  const out: WireEvent[] = [
    ev('message_start', { message: { ...body, content: [], stop_reason: null, usage: { ...body.usage, output_tokens: 1 } } }),
  ]
  for (const [index, block] of body.content.entries()) {
    if (block.type === 'thinking') {
      out.push(ev('content_block_start', { index, content_block: { type: 'thinking', thinking: '' } }))
      for (const p of pieces(t.reasoning!, t))
        out.push(ev('content_block_delta', { index, delta: { type: 'thinking_delta', thinking: p } }, delay))
      out.push(ev('content_block_delta', { index, delta: { type: 'signature_delta', signature: 'sig' } }))
    } else if (block.type === 'text') {
      out.push(ev('content_block_start', { index, content_block: { type: 'text', text: '' } }))
      for (const p of pieces(t.text!, t)) out.push(ev('content_block_delta', { index, delta: { type: 'text_delta', text: p } }, delay))
    } else {
      const use = block as { id: string; name: string; input: unknown }
      out.push(ev('content_block_start', { index, content_block: { type: 'tool_use', id: use.id, name: use.name, input: {} } }))
      out.push(ev('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: JSON.stringify(use.input) } }))
    }
    out.push(ev('content_block_stop', { index }))
  }
  out.push(
    ev('message_delta', {
      delta: { stop_reason: body.stop_reason, stop_sequence: null },
      usage: { output_tokens: body.usage.output_tokens },
    }),
  )
  out.push(ev('message_stop', {}))
  return out
}
