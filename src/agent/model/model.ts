/**
 * The part of the AI SDK's `LanguageModelV2` specification (`@ai-sdk/provider`, the spec Mastra
 * 1.71 accepts) runTask uses, declared structurally so this entry needs no AI SDK import: any
 * real V2 model object satisfies {@link LanguageModel}.
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

/** Token counts; providers may leave any of them undefined. */
export interface ModelUsage {
  inputTokens: number | undefined
  outputTokens: number | undefined
  totalTokens: number | undefined
}

/** Content the model generated: text and tool calls (`input` is a JSON string); other parts are ignored. */
export type GeneratedContent =
  | { type: 'text'; text: string }
  | { type: 'tool-call'; toolCallId: string; toolName: string; input: string }
  | { type: string; [key: string]: unknown }

/** Why the model stopped. */
export type FinishReason = 'stop' | 'length' | 'content-filter' | 'tool-calls' | 'error' | 'other' | 'unknown'

/** What `doGenerate` resolves to. */
export interface GenerateResult {
  content: GeneratedContent[]
  finishReason: FinishReason
  usage: ModelUsage
  warnings?: unknown[]
}

/** An AI-SDK language model (specification v2). Only `doGenerate` is called by runTask. */
export interface LanguageModel {
  readonly specificationVersion: 'v2'
  readonly provider: string
  readonly modelId: string
  readonly supportedUrls?: unknown
  doGenerate(options: ModelCallOptions): PromiseLike<GenerateResult>
  doStream?(options: ModelCallOptions): PromiseLike<{ stream: ReadableStream<unknown> }>
}
