// Compile-time check: a real AI-SDK LanguageModelV2 is a LanguageModel, and scriptedModel is a LanguageModelV2.
import type { LanguageModelV2 } from '@ai-sdk/provider-v5'
import type { LanguageModel } from '../../src/agent/model/model.js'
import { scriptedModel } from '../../src/agent/model/scripted-model.js'

declare const real: LanguageModelV2
export const asOurs: LanguageModel = real
export const asTheirs: LanguageModelV2 = scriptedModel(() => ({}))
