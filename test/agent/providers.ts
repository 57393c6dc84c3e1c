import { createAnthropic } from '@ai-sdk/anthropic'
import { createOpenAI } from '@ai-sdk/openai'
import { createOpenAICompatible } from '@ai-sdk/openai-compatible'
import { openAiCompatibleModel, type LanguageModel } from '../../src/agent/index.js'
import type { FakeApi, FakeRequest } from './fake-openai.js'

/** A real provider package's model pointed at the fake server, with what to expect of it. */
export interface ProviderCase {
  name: string
  version: 'v2' | 'v3' | 'v4'
  api: FakeApi
  make(baseURL: string): LanguageModel
  /** Does the provider report cached input tokens, reasoning tokens? */
  reports: { cached: boolean; reasoning: boolean }
  /** Does it read reasoning from this wire format? */
  readsReasoning: boolean
  /** The tool results the second request carries, in the provider's own format. */
  toolResults(req: FakeRequest): unknown[]
}

export const PROVIDERS: ProviderCase[] = [
  {
    name: '@ai-sdk/openai 4 (responses)',
    version: 'v4',
    api: 'responses',
    make: baseURL => createOpenAI({ baseURL, apiKey: 'sk-test' })('gpt-5-mini'),
    reports: { cached: true, reasoning: true },
    readsReasoning: true,
    toolResults: req => (req.body.input ?? []).filter(i => i.type === 'function_call_output'),
  },
  {
    name: '@ai-sdk/openai 4 (chat completions)',
    version: 'v4',
    api: 'chat',
    make: baseURL => createOpenAI({ baseURL, apiKey: 'sk-test' }).chat('gpt-4o-mini'),
    reports: { cached: true, reasoning: true },
    readsReasoning: false,
    toolResults: req => req.body.messages.filter(m => m.role === 'tool'),
  },
  {
    name: '@ai-sdk/anthropic 4 (messages)',
    version: 'v4',
    api: 'messages',
    make: baseURL => createAnthropic({ baseURL, apiKey: 'sk-test' })('claude-sonnet-4-5'),
    reports: { cached: true, reasoning: false },
    readsReasoning: true,
    toolResults: req =>
      req.body.messages
        .flatMap(m => (Array.isArray(m.content) ? (m.content as Array<{ type: string }>) : []))
        .filter(c => c.type === 'tool_result'),
  },
  {
    name: '@ai-sdk/openai-compatible 3',
    version: 'v3',
    api: 'chat',
    make: baseURL => createOpenAICompatible({ name: 'local', baseURL, apiKey: 'sk-test', includeUsage: true })('local-model'),
    reports: { cached: true, reasoning: true },
    readsReasoning: true,
    toolResults: req => req.body.messages.filter(m => m.role === 'tool'),
  },
  {
    name: 'openAiCompatibleModel (v2, this library)',
    version: 'v2',
    api: 'chat',
    make: baseURL => openAiCompatibleModel({ baseURL, apiKey: 'sk-test', modelId: 'local-model' }),
    reports: { cached: false, reasoning: false },
    readsReasoning: true,
    toolResults: req => req.body.messages.filter(m => m.role === 'tool'),
  },
]
