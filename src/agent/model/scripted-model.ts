import type { GenerateResult, LanguageModel, ModelCallOptions, PromptMessage } from './model.js'
import { readWindowState, type WindowState } from './prompt.js'

/** A tool call a scripted model makes. */
export interface ScriptedCall {
  toolName: string
  input: unknown
}

/** What a scripted model says in one turn: text, tool calls, or both. No tool calls ends the turn. */
export interface ScriptedTurn {
  text?: string
  /** Reasoning shown before the text (streamed as reasoning parts, generated as a reasoning part). */
  reasoning?: string
  toolCalls?: ScriptedCall[]
}

/** Options of {@link scriptedModel}. */
export interface ScriptedModelOptions {
  modelId?: string
  /** `doStream` sends text and reasoning in pieces of this many characters. Default: each whole, in one piece. */
  chunkChars?: number
  /** `doStream` waits this long before each piece (a model that takes its time). Default 0. */
  chunkDelayMs?: number
}

/** A tool result as the scripted model sees it. */
export interface ToolResultView {
  toolCallId: string
  toolName: string
  /** The input of the call this result answers. */
  input: unknown
  ok: boolean
  /** The JSON value or text of the result (for errors, the error text). */
  value: unknown
}

/** Everything a scripted model decides from: the prompt, nothing else. */
export interface ScriptedView {
  /** 0-based number of this call on this model object. */
  call: number
  prompt: PromptMessage[]
  system: string
  /** Text of the window's opening user message. */
  opening: string
  /** runTask's state block from the opening message (plan, rejection, answers), if present. */
  state?: WindowState
  /** Every tool result of this window, in order. */
  results: ToolResultView[]
  /** Results of this model's previous turn only. */
  last: ToolResultView[]
  /** Names of the tools offered. */
  toolNames: string[]
}

/** A {@link LanguageModel} that never calls a network; `calls` counts its turns. */
export interface ScriptedModel extends LanguageModel {
  readonly specificationVersion: 'v2'
  readonly supportedUrls: Record<string, RegExp[]>
  readonly calls: number
  doGenerate(options: ModelCallOptions): Promise<ScriptedGenerateResult>
  /** Stream parts of the AI SDK v2 protocol, typed as that protocol's parts so the model fits `LanguageModelV2`. */
  doStream(options: ModelCallOptions): Promise<{ stream: ReadableStream<ScriptedStreamPart> }>
}

/** The AI SDK v2 stream parts a scripted model sends: text in one delta, tool calls whole, one finish. */
export type ScriptedStreamPart =
  | { type: 'stream-start'; warnings: [] }
  | { type: 'text-start'; id: string }
  | { type: 'text-delta'; id: string; delta: string }
  | { type: 'text-end'; id: string }
  | { type: 'reasoning-start'; id: string }
  | { type: 'reasoning-delta'; id: string; delta: string }
  | { type: 'reasoning-end'; id: string }
  | { type: 'tool-call'; toolCallId: string; toolName: string; input: string }
  | { type: 'finish'; finishReason: ScriptedGenerateResult['finishReason']; usage: ScriptedGenerateResult['usage'] }

/** What a scripted model's `doGenerate` returns: text and tool-call parts only. */
export interface ScriptedGenerateResult extends GenerateResult {
  content: Array<
    | { type: 'text'; text: string }
    | { type: 'reasoning'; text: string }
    | { type: 'tool-call'; toolCallId: string; toolName: string; input: string }
  >
  finishReason: 'stop' | 'tool-calls'
  usage: { inputTokens: number; outputTokens: number; totalTokens: number }
  warnings: []
}

/**
 * An offline stand-in for a language model: `decide` looks at what a real model would see (the
 * prompt, including tool results) and returns the next turn. It emits real tool calls through the
 * AI-SDK v2 protocol, so it never touches the workspace except through tools. `doStream` sends the
 * same turn as stream parts (in pieces with `chunkChars`, paced by `chunkDelayMs`). It is not an
 * enumerable property: a copy that replaces `doGenerate` (`{ ...model, doGenerate }`) has no
 * `doStream`, so the runner calls the replacement (as with a real AI SDK model, a class instance).
 */
export function scriptedModel(
  decide: (view: ScriptedView) => ScriptedTurn | Promise<ScriptedTurn>,
  options: ScriptedModelOptions = {},
): ScriptedModel {
  let calls = 0
  let ids = 0
  const generate = async (opts: ModelCallOptions): Promise<ScriptedGenerateResult> => {
    const view = viewOf(opts, calls++)
    const turn = await decide(view)
    const content: ScriptedGenerateResult['content'] = []
    if (turn.reasoning) content.push({ type: 'reasoning', text: turn.reasoning })
    if (turn.text) content.push({ type: 'text', text: turn.text })
    for (const call of turn.toolCalls ?? []) {
      content.push({
        type: 'tool-call',
        toolCallId: `call_${++ids}`,
        toolName: call.toolName,
        input: JSON.stringify(call.input ?? {}),
      })
    }
    const inputTokens = Math.ceil(JSON.stringify(opts.prompt).length / 4)
    const outputTokens = Math.ceil(JSON.stringify(content).length / 4)
    return {
      content,
      finishReason: (turn.toolCalls?.length ?? 0) > 0 ? 'tool-calls' : 'stop',
      usage: { inputTokens, outputTokens, totalTokens: inputTokens + outputTokens },
      warnings: [],
    }
  }
  const model = {
    specificationVersion: 'v2',
    provider: 'agent-vfs',
    modelId: options.modelId ?? 'scripted',
    supportedUrls: {},
    get calls() {
      return calls
    },
    doGenerate: generate,
  } as Omit<ScriptedModel, 'doStream'>
  const doStream = async (opts: ModelCallOptions) => ({ stream: streamOf(await generate(opts), options, opts.abortSignal) })
  return Object.defineProperty(model, 'doStream', { value: doStream, enumerable: false }) as ScriptedModel
}

/** A generated turn as v2 stream parts, text and reasoning in pieces. */
function streamOf(
  r: ScriptedGenerateResult,
  options: ScriptedModelOptions,
  signal: AbortSignal | undefined,
): ReadableStream<ScriptedStreamPart> {
  const size = options.chunkChars !== undefined && options.chunkChars >= 1 ? Math.floor(options.chunkChars) : Infinity
  const delayMs = Math.max(0, options.chunkDelayMs ?? 0)
  const parts: Array<ScriptedStreamPart | 'pause'> = [{ type: 'stream-start', warnings: [] }]
  for (const [i, c] of r.content.entries()) {
    if (c.type === 'tool-call') {
      parts.push(c)
      continue
    }
    const kind = c.type
    const id = `${kind[0]}${i}`
    parts.push({ type: `${kind}-start`, id })
    for (let at = 0; at < c.text.length; at += size) parts.push('pause', { type: `${kind}-delta`, id, delta: c.text.slice(at, at + size) })
    parts.push({ type: `${kind}-end`, id })
  }
  parts.push({ type: 'finish', finishReason: r.finishReason, usage: r.usage })
  let next = 0
  return new ReadableStream<ScriptedStreamPart>({
    async pull(controller) {
      for (;;) {
        const p = parts[next++]
        if (p === undefined) return controller.close()
        if (p !== 'pause') return controller.enqueue(p)
        if (delayMs > 0) await new Promise(resolve => setTimeout(resolve, delayMs))
        if (signal?.aborted) return controller.error(signal.reason)
      }
    },
  })
}

function viewOf(opts: ModelCallOptions, call: number): ScriptedView {
  const prompt = opts.prompt
  const system = prompt
    .filter(m => m.role === 'system')
    .map(m => m.content as string)
    .join('\n')
  const firstUser = prompt.find(m => m.role === 'user')
  const opening = firstUser ? (firstUser.content as Array<{ type: string; text?: string }>).map(p => p.text ?? '').join('\n') : ''
  const inputs = new Map<string, unknown>()
  const results: ToolResultView[] = []
  let lastStart = 0
  for (const m of prompt) {
    if (m.role === 'assistant') {
      lastStart = results.length
      for (const part of m.content)
        if (part.type === 'tool-call') inputs.set(part.toolCallId, typeof part.input === 'string' ? safeJson(part.input) : part.input)
    }
    if (m.role === 'tool') {
      for (const r of m.content) {
        const ok = r.output.type === 'json' || r.output.type === 'text'
        results.push({
          toolCallId: r.toolCallId,
          toolName: r.toolName,
          input: inputs.get(r.toolCallId),
          ok,
          value: r.output.value,
        })
      }
    }
  }
  return {
    call,
    prompt,
    system,
    opening,
    state: readWindowState(opening),
    results,
    last: results.slice(lastStart),
    toolNames: (opts.tools ?? []).map(t => t.name),
  }
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    return text
  }
}
