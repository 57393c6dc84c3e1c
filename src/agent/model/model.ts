/**
 * The part of the AI SDK's language-model specifications v2, v3 and v4 (`@ai-sdk/provider` 2, 3
 * and 4; Mastra 1.71 accepts v2) that runTask uses, declared structurally so this entry needs no
 * AI SDK import: any real model object of those versions satisfies {@link LanguageModel}. The
 * versions share the prompt, tool and content formats runTask uses; they differ in what a call
 * reports (usage, finish reason), which `model-output.ts` reads into one shape.
 */

/** JSON a tool result may carry. */
export type JsonValue = null | string | number | boolean | JsonValue[] | { [key: string]: JsonValue }

/** A text part of a prompt message. */
export interface TextPart {
  type: 'text'
  text: string
}

/** A tool call the model made, as it appears in the prompt's assistant messages. */
export interface ToolCallPart {
  type: 'tool-call'
  toolCallId: string
  toolName: string
  input: unknown
}

/** Output of a tool, as the model sees it. */
export type ToolResultOutput =
  | { type: 'text'; value: string }
  | { type: 'json'; value: JsonValue }
  | { type: 'error-text'; value: string }
  | { type: 'error-json'; value: JsonValue }

/** A tool result in the prompt. */
export interface ToolResultPart {
  type: 'tool-result'
  toolCallId: string
  toolName: string
  output: ToolResultOutput
}

/** One prompt message. */
export type PromptMessage =
  | { role: 'system'; content: string }
  | { role: 'user'; content: TextPart[] }
  | { role: 'assistant'; content: Array<TextPart | ToolCallPart> }
  | { role: 'tool'; content: ToolResultPart[] }

/** A function tool offered to the model; `inputSchema` is JSON Schema. */
export interface FunctionToolSpec {
  type: 'function'
  name: string
  description?: string
  inputSchema: Record<string, unknown>
}

/** What runTask passes to `doGenerate`. */
export interface ModelCallOptions {
  prompt: PromptMessage[]
  tools?: FunctionToolSpec[]
  toolChoice?: { type: 'auto' } | { type: 'required' } | { type: 'none' }
  maxOutputTokens?: number
  abortSignal?: AbortSignal
}

/** Usage as a v2 model reports it: flat counts, any of them undefined. */
export interface ReportedUsageV2 {
  inputTokens: number | undefined
  outputTokens: number | undefined
  totalTokens: number | undefined
  reasoningTokens?: number | undefined
  cachedInputTokens?: number | undefined
}

/** Usage as a v3 or v4 model reports it: nested objects (`raw` is the provider's own shape). */
export interface ReportedUsageV3 {
  inputTokens: { total: number | undefined; noCache?: number | undefined; cacheRead?: number | undefined; cacheWrite?: number | undefined }
  outputTokens: { total: number | undefined; text?: number | undefined; reasoning?: number | undefined }
  raw?: unknown
}

/** What a model of any supported version reports as usage. */
export type ReportedUsage = ReportedUsageV2 | ReportedUsageV3

/**
 * Token counts of one model call, the same shape for every specification version (see
 * `readUsage`): counts a provider did not report are 0; `totalTokens` is the provider's total or
 * input + output. `reasoningTokens` (part of the output) and `cachedInputTokens` (part of the
 * input: read from the provider's prompt cache) are present when the provider reported them.
 */
export interface ModelUsage {
  inputTokens: number
  outputTokens: number
  totalTokens: number
  reasoningTokens?: number
  cachedInputTokens?: number
}

/** Content the model generated: text and tool calls (`input` is a JSON string); other parts are ignored. */
export type GeneratedContent =
  | { type: 'text'; text: string }
  | { type: 'tool-call'; toolCallId: string; toolName: string; input: string }
  | { type: string; [key: string]: unknown }

/** Why the model stopped (v4's `interrupted`: the stream ended without a finish). */
export type FinishReason = 'stop' | 'length' | 'content-filter' | 'tool-calls' | 'error' | 'interrupted' | 'other' | 'unknown'

/** A finish reason as reported: a v2 string, or v3/v4's `{ unified, raw }` (`raw`: the provider's own word). */
export type ReportedFinishReason = FinishReason | { unified: string; raw?: string | undefined }

/** What `doGenerate` resolves to (any version). */
export interface GenerateResult {
  content: GeneratedContent[]
  finishReason: ReportedFinishReason
  usage: ReportedUsage
  warnings?: unknown[]
}

/** The specification versions runTask accepts. */
export type SpecificationVersion = 'v2' | 'v3' | 'v4'

/**
 * An AI-SDK language model of specification v2, v3 or v4 (`LanguageModelV2`/`V3`/`V4` of
 * `@ai-sdk/provider`). runTask streams with `doStream` when the model has one (text reaches live
 * observers as it is generated) and calls `doGenerate` otherwise.
 */
export interface LanguageModel {
  readonly specificationVersion: SpecificationVersion
  readonly provider: string
  readonly modelId: string
  readonly supportedUrls?: unknown
  doGenerate(options: ModelCallOptions): PromiseLike<GenerateResult>
  doStream?(options: ModelCallOptions): PromiseLike<{ stream: ReadableStream<unknown> }>
}
