import type { GenerateResult, LanguageModel, ModelCallOptions, PromptMessage } from './model.js'
import { CHAT_FINISH, chatCompletionParts, type ChatStreamPart } from './openai-compatible-stream.js'

/** Options of {@link openAiCompatibleModel}. Give `baseUrl` (or its alias `baseURL`). */
export interface OpenAiCompatibleOptions {
  /** Base URL of the API, e.g. `https://api.openai.com/v1` or `http://127.0.0.1:8080/v1`. */
  baseUrl?: string
  /** The same as `baseUrl`, spelled as the OpenAI SDK spells it. */
  baseURL?: string
  /** Sent as `Authorization: Bearer <apiKey>` when given. */
  apiKey?: string
  /** The model id the endpoint knows, e.g. `gpt-4o-mini`. */
  modelId: string
  /** Extra request headers. */
  headers?: Record<string, string>
  /** The fetch to use. Default: the global one (browsers, Workers, Node ≥ 18). */
  fetch?: typeof fetch
  /** Sampling temperature. Default: the endpoint's. */
  temperature?: number
}

interface ChatMessage {
  role: 'system' | 'user' | 'assistant' | 'tool'
  content: string | null
  tool_calls?: Array<{ id: string; type: 'function'; function: { name: string; arguments: string } }>
  tool_call_id?: string
}

/**
 * An HTTP error of the endpoint, shaped as the AI SDK's `APICallError` (`statusCode`,
 * `responseHeaders`, `isRetryable`), so the runner retries 429 and 5xx answers after their `retry-after`.
 */
export class ModelHttpError extends Error {
  override readonly name = 'ModelHttpError'
  readonly isRetryable: boolean
  constructor(
    readonly url: string,
    readonly statusCode: number,
    readonly responseHeaders: Record<string, string>,
    readonly responseBody: string,
  ) {
    super(`${url} answered ${statusCode}: ${responseBody.slice(0, 500)}`)
    this.isRetryable = statusCode === 408 || statusCode === 409 || statusCode === 429 || statusCode >= 500
  }
}

/**
 * A language model over any OpenAI-compatible `/chat/completions` endpoint (OpenAI, vLLM, Ollama,
 * llama.cpp, LM Studio …), using only `fetch`, so it runs in browsers, Workers and Node. `doStream`
 * asks for server-sent chunks (`stream: true`), so text reaches live observers as it comes.
 */
export function openAiCompatibleModel(options: OpenAiCompatibleOptions): LanguageModel {
  const baseUrl = options?.baseUrl ?? options?.baseURL
  if (!baseUrl || !options.modelId) throw new TypeError('openAiCompatibleModel needs baseUrl (or its alias baseURL) and modelId')
  if (options.baseUrl && options.baseURL && options.baseUrl !== options.baseURL) {
    throw new TypeError(`openAiCompatibleModel: baseUrl and baseURL differ (${options.baseUrl} vs ${options.baseURL}); pass one`)
  }
  const url = baseUrl.replace(/\/+$/, '') + '/chat/completions'
  const doFetch = options.fetch ?? ((...args: Parameters<typeof fetch>) => fetch(...args))
  const post = async (call: ModelCallOptions, stream: boolean): Promise<Response> => {
    const body = {
      model: options.modelId,
      messages: toChatMessages(call.prompt),
      ...(call.tools?.length
        ? {
            tools: call.tools.map(t => ({
              type: 'function',
              function: { name: t.name, description: t.description ?? '', parameters: t.inputSchema },
            })),
            tool_choice: call.toolChoice?.type ?? 'auto',
          }
        : {}),
      ...(call.maxOutputTokens ? { max_tokens: call.maxOutputTokens } : {}),
      ...(options.temperature !== undefined ? { temperature: options.temperature } : {}),
      ...(stream ? { stream: true, stream_options: { include_usage: true } } : {}),
    }
    const response = await doFetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        ...(options.apiKey ? { authorization: `Bearer ${options.apiKey}` } : {}),
        ...options.headers,
      },
      body: JSON.stringify(body),
      ...(call.abortSignal ? { signal: call.abortSignal } : {}),
    })
    if (!response.ok) throw new ModelHttpError(url, response.status, Object.fromEntries(response.headers), await response.text())
    return response
  }
  const model: LanguageModel = {
    specificationVersion: 'v2',
    provider: 'openai-compatible',
    modelId: options.modelId,
    supportedUrls: {},
    async doGenerate(call: ModelCallOptions): Promise<GenerateResult> {
      return generateResult(await (await post(call, false)).text(), url)
    },
  }
  // The same call with `stream: true`: server-sent chat-completion chunks as v2 stream parts. Not
  // enumerable, as on a scripted model: a copy that replaces doGenerate ({ ...model, doGenerate }) generates.
  const doStream = async (call: ModelCallOptions): Promise<{ stream: ReadableStream<ChatStreamPart> }> => {
    const response = await post(call, true)
    if (!response.body) throw new Error(`${url} answered a stream request without a body`)
    return { stream: chatCompletionParts(response.body, url) }
  }
  return Object.defineProperty(model, 'doStream', { value: doStream, enumerable: false })
}

/** A chat-completions JSON body as a generate result. */
function generateResult(text: string, url: string): GenerateResult {
  let json: {
    choices?: Array<{
      message?: { content?: string | null; reasoning_content?: string | null; tool_calls?: ChatMessage['tool_calls'] }
      finish_reason?: string
    }>
    usage?: { prompt_tokens?: number; completion_tokens?: number; total_tokens?: number }
  }
  try {
    json = JSON.parse(text)
  } catch {
    throw new Error(`${url} answered with something that is not JSON: ${text.slice(0, 200)}`)
  }
  const choice = json.choices?.[0]
  if (!choice?.message) throw new Error(`${url} answered without choices[0].message`)
  const content: GenerateResult['content'] = []
  if (choice.message.reasoning_content) content.push({ type: 'reasoning', text: choice.message.reasoning_content })
  if (choice.message.content) content.push({ type: 'text', text: choice.message.content })
  for (const tc of choice.message.tool_calls ?? [])
    content.push({ type: 'tool-call', toolCallId: tc.id, toolName: tc.function.name, input: tc.function.arguments || '{}' })
  return {
    content,
    finishReason: CHAT_FINISH[choice.finish_reason ?? ''] ?? 'other',
    usage: {
      inputTokens: json.usage?.prompt_tokens,
      outputTokens: json.usage?.completion_tokens,
      totalTokens: json.usage?.total_tokens,
    },
    warnings: [],
  }
}

/** Converts a v2 prompt to chat-completions messages. */
export function toChatMessages(prompt: PromptMessage[]): ChatMessage[] {
  const out: ChatMessage[] = []
  for (const m of prompt) {
    if (m.role === 'system') out.push({ role: 'system', content: m.content })
    else if (m.role === 'user') out.push({ role: 'user', content: m.content.map(p => p.text).join('\n') })
    else if (m.role === 'assistant') {
      const text = m.content
        .filter(p => p.type === 'text')
        .map(p => (p as { text: string }).text)
        .join('\n')
      const calls = m.content.filter(p => p.type === 'tool-call')
      out.push({
        role: 'assistant',
        content: text === '' ? null : text,
        ...(calls.length
          ? {
              tool_calls: calls.map(c => ({
                id: c.toolCallId,
                type: 'function' as const,
                function: { name: c.toolName, arguments: typeof c.input === 'string' ? c.input : JSON.stringify(c.input ?? {}) },
              })),
            }
          : {}),
      })
    } else {
      for (const r of m.content) {
        const v = r.output.value
        out.push({
          role: 'tool',
          tool_call_id: r.toolCallId,
          content: (r.output.type.startsWith('error') ? 'Error: ' : '') + (typeof v === 'string' ? v : JSON.stringify(v)),
        })
      }
    }
  }
  return out
}
