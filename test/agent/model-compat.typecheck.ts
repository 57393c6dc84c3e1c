// Compile-time check: real AI-SDK models of specification v2, v3 and v4 are LanguageModels, and scriptedModel is a LanguageModelV2.
import type { LanguageModelV2 } from '@ai-sdk/provider-v5'
import type { LanguageModelV3 } from '@ai-sdk/provider-v6'
import type { LanguageModelV4 } from '@ai-sdk/provider'
import { createOpenAI } from '@ai-sdk/openai'
import { createAnthropic } from '@ai-sdk/anthropic'
import { createOpenAICompatible } from '@ai-sdk/openai-compatible'
import type { LanguageModel } from '../../src/agent/model/model.js'
import { scriptedModel } from '../../src/agent/model/scripted-model.js'

declare const real: LanguageModelV2
declare const v3: LanguageModelV3
declare const v4: LanguageModelV4
export const asOurs: LanguageModel = real
export const v3AsOurs: LanguageModel = v3
export const v4AsOurs: LanguageModel = v4
export const asTheirs: LanguageModelV2 = scriptedModel(() => ({}))
// What users pass: the provider packages' own factories.
export const openAiResponses: LanguageModel = createOpenAI({ apiKey: 'k' })('gpt-5-mini')
export const openAiChat: LanguageModel = createOpenAI({ apiKey: 'k' }).chat('gpt-5-mini')
export const anthropic: LanguageModel = createAnthropic({ apiKey: 'k' })('claude-sonnet-4-5')
export const compatible: LanguageModel = createOpenAICompatible({ name: 'local', baseURL: 'http://127.0.0.1:1/v1' })('m')
