import type { FinishReason, GenerateResult, LanguageModel, ModelCallOptions, PromptMessage } from './model.js'

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

const FINISH: Record<string, FinishReason> = {
  stop: 'stop',
  tool_calls: 'tool-calls',
  length: 'length',
  content_filter: 'content-filter',
  function_call: 'tool-calls',
}

/**
 * A language model over any OpenAI-compatible `/chat/completions` endpoint (OpenAI, vLLM, Ollama,
 * llama.cpp, LM Studio …), using only `fetch`, so it runs in browsers, Workers and Node. Only
 * `doGenerate` is provided; runTask needs nothing else.
 */
export function openAiCompatibleModel(options: OpenAiCompatibleOptions): LanguageModel {
  const baseUrl = options?.baseUrl ?? options?.baseURL
  if (!baseUrl || !options.modelId) throw new TypeError('openAiCompatibleModel needs baseUrl (or its alias baseURL) and modelId')
  if (options.baseUrl && options.baseURL && options.baseUrl !== options.baseURL) {
    throw new TypeError(`openAiCompatibleModel: baseUrl and baseURL differ (${options.baseUrl} vs ${options.baseURL}); pass one`)
  }
  const url = baseUrl.replace(/\/+$/, '') + '/chat/completions'
  const doFetch = options.fetch ?? ((...args: Parameters<typeof fetch>) => fetch(...args))
  return {
    specificationVersion: 'v2',
    provider: 'openai-compatible',
    modelId: options.modelId,
    supportedUrls: {},
    async doGenerate(call: ModelCallOptions): Promise<GenerateResult> {
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
      const text = await response.text()
      if (!response.ok) throw new Error(`${url} answered ${response.status}: ${text.slice(0, 500)}`)
      let json: {
        choices?: Array<{ message?: { content?: string | null; tool_calls?: ChatMessage['tool_calls'] }; finish_reason?: string }>
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
      if (choice.message.content) content.push({ type: 'text', text: choice.message.content })
      for (const tc of choice.message.tool_calls ?? [])
        content.push({ type: 'tool-call', toolCallId: tc.id, toolName: tc.function.name, input: tc.function.arguments || '{}' })
      return {
        content,
        finishReason: FINISH[choice.finish_reason ?? ''] ?? 'other',
        usage: {
          inputTokens: json.usage?.prompt_tokens,
          outputTokens: json.usage?.completion_tokens,
          totalTokens: json.usage?.total_tokens,
        },
        warnings: [],
      }
    },
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
