import type {
  FinishReason,
  GenerateResult,
  LanguageModel,
  ModelCallOptions,
  ModelUsage,
  ReportedFinishReason,
  ReportedUsage,
} from './model.js'
import { readFinishReason, readUsage } from './model-output.js'

/**
 * A piece of assistant text (or reasoning) as the model streams it, for live observers only: the
 * text of stream `streamId` is `previous.slice(0, at) + delta`, so applying a delta twice, or a
 * snapshot (`at: 0`, the text so far) after deltas, gives the same text. The durable `text` (or
 * `reasoning`) event with the same `streamId` replaces it when the model call ends; `discarded`
 * says no such event will come (the call failed or was aborted).
 */
export interface TextDelta {
  kind: 'text' | 'reasoning'
  streamId: string
  at: number
  delta: string
  discarded?: true
}

/** Text or reasoning the model produced in one call; `streamId` when it was streamed. */
export interface ProducedText {
  text: string
  streamId?: string
}

/** One model call's outcome, whatever the model's version and whether it streamed. */
export interface ModelTurn {
  texts: ProducedText[]
  reasoning: ProducedText[]
  /** Inputs as the model gave them: JSON text, or a value (checked for depth by the loop before anything walks it). */
  toolCalls: Array<{ toolCallId: string; toolName: string; input: unknown }>
  finishReason: FinishReason
  usage: ModelUsage
  streamed: boolean
  /** Attempts that failed before this one succeeded (rate limits, 5xx, dropped connections). */
  retries: number
  durationMs: number
}

/** What a failed model call said, read from an AI SDK `APICallError` or anything shaped like one. */
export interface ModelErrorInfo {
  message: string
  statusCode?: number
  retryable: boolean
  /** The wait the provider asked for (`retry-after-ms`, `retry-after` in seconds or as a date). */
  retryAfterMs?: number
}

/** How a model call is made. */
export interface ModelCallSettings {
  /** Use `doStream` when the model has it. */
  stream: boolean
  /** Retries of a retryable failure (429, 408, 409, 5xx, a dropped connection). */
  maxRetries: number
  /** The longest wait between attempts; a longer `retry-after` is not waited for (the backoff applies). */
  maxRetryDelayMs: number
  /** Prefix of the call's stream ids (`<prefix>.<part>`). */
  streamId: string
  signal?: AbortSignal
  onDelta?: (delta: TextDelta) => void
  /** Told before each wait for a retry. */
  onRetry?: (retry: { attempt: number; delayMs: number; error: ModelErrorInfo }) => void | Promise<void>
}

/** The backoff without a `retry-after`: 0.5 s, 1 s, 2 s … */
const BACKOFF_MS = 500

/**
 * Calls the model once, retrying retryable failures with the provider's `retry-after` (or a
 * backoff) up to `maxRetries` times, streaming when the model can. An abort ends it at once with
 * the abort's reason.
 */
export async function callModel(model: LanguageModel, options: ModelCallOptions, settings: ModelCallSettings): Promise<ModelTurn> {
  const started = Date.now()
  for (let attempt = 0; ; attempt++) {
    try {
      const turn =
        settings.stream && typeof model.doStream === 'function' ? await streamed(model, options, settings) : await generated(model, options)
      return { ...turn, retries: attempt, durationMs: Date.now() - started }
    } catch (error) {
      if (settings.signal?.aborted) throw error
      const info = describeModelError(error)
      if (!info.retryable || attempt >= settings.maxRetries) throw error
      const backoff = BACKOFF_MS * 2 ** attempt
      const delayMs = info.retryAfterMs !== undefined && info.retryAfterMs <= settings.maxRetryDelayMs ? info.retryAfterMs : backoff
      if (delayMs > settings.maxRetryDelayMs) throw error
      await settings.onRetry?.({ attempt: attempt + 1, delayMs, error: info })
      await sleep(delayMs, settings.signal)
    }
  }
}

type TurnBody = Omit<ModelTurn, 'retries' | 'durationMs'>

async function generated(model: LanguageModel, options: ModelCallOptions): Promise<TurnBody> {
  const r: GenerateResult = await model.doGenerate(options)
  const turn: TurnBody = {
    texts: [],
    reasoning: [],
    toolCalls: [],
    finishReason: readFinishReason(r.finishReason),
    usage: readUsage(r.usage),
    streamed: false,
  }
  for (const c of r.content ?? []) {
    if (c.type === 'text' && typeof c.text === 'string') turn.texts.push({ text: c.text })
    else if (c.type === 'reasoning' && typeof c.text === 'string') turn.reasoning.push({ text: c.text })
    else if (c.type === 'tool-call') turn.toolCalls.push(toolCallOf(c))
  }
  return turn
}

/** Reads a `doStream` stream (the same parts in v2, v3 and v4) into a turn, telling `onDelta` as text arrives. */
async function streamed(model: LanguageModel, options: ModelCallOptions, settings: ModelCallSettings): Promise<TurnBody> {
  const { stream } = await model.doStream!(options)
  const reader = stream.getReader()
  const open = new Map<string, { kind: 'text' | 'reasoning'; produced: ProducedText }>()
  const turn: TurnBody = {
    texts: [],
    reasoning: [],
    toolCalls: [],
    finishReason: 'interrupted',
    usage: readUsage(undefined),
    streamed: true,
  }
  let parts = 0
  const part = (kind: 'text' | 'reasoning', id: string) => {
    let p = open.get(`${kind}:${id}`)
    if (!p) {
      p = { kind, produced: { text: '', streamId: `${settings.streamId}.${parts++}` } }
      open.set(`${kind}:${id}`, p)
      ;(kind === 'text' ? turn.texts : turn.reasoning).push(p.produced)
    }
    return p.produced
  }
  try {
    for (;;) {
      const { done, value } = await reader.read()
      if (done) break
      const p = (value ?? {}) as { type?: string; id?: string; delta?: unknown; error?: unknown; [key: string]: unknown }
      if ((p.type === 'text-delta' || p.type === 'reasoning-delta') && typeof p.delta === 'string' && p.delta !== '') {
        const kind = p.type === 'text-delta' ? 'text' : 'reasoning'
        const produced = part(kind, String(p.id ?? ''))
        const at = produced.text.length
        produced.text += p.delta
        settings.onDelta?.({ kind, streamId: produced.streamId!, at, delta: p.delta })
      } else if (p.type === 'tool-call') turn.toolCalls.push(toolCallOf(p))
      else if (p.type === 'finish') {
        turn.finishReason = readFinishReason(p.finishReason as ReportedFinishReason)
        turn.usage = readUsage(p.usage as ReportedUsage)
      } else if (p.type === 'error') throw p.error instanceof Error ? p.error : new Error(describeModelError(p.error).message)
    }
  } catch (error) {
    for (const { kind, produced } of open.values())
      settings.onDelta?.({ kind, streamId: produced.streamId!, at: 0, delta: '', discarded: true })
    void reader.cancel().catch(() => undefined)
    throw error
  } finally {
    reader.releaseLock()
  }
  return turn
}

function toolCallOf(c: { [key: string]: unknown }) {
  return {
    toolCallId: String(c.toolCallId),
    toolName: String(c.toolName),
    // Not stringified here: a value nested 100,000 deep would throw out of the call (parseInput refuses it as a tool error).
    input: c.input ?? {},
  }
}

/**
 * What a failed call says: message, status, whether to retry and after how long. An AI SDK
 * `APICallError` says `isRetryable` itself; otherwise 408, 409, 429 and 5xx are retried.
 */
export function describeModelError(error: unknown): ModelErrorInfo {
  const e = (error !== null && typeof error === 'object' ? error : {}) as {
    message?: unknown
    statusCode?: unknown
    isRetryable?: unknown
    responseHeaders?: unknown
  }
  const message = typeof e.message === 'string' ? e.message : String(error)
  const statusCode = typeof e.statusCode === 'number' ? e.statusCode : undefined
  const retryable =
    typeof e.isRetryable === 'boolean'
      ? e.isRetryable
      : statusCode !== undefined && (statusCode === 408 || statusCode === 409 || statusCode === 429 || statusCode >= 500)
  const retryAfterMs = retryAfter(e.responseHeaders)
  return {
    message,
    retryable,
    ...(statusCode !== undefined ? { statusCode } : {}),
    ...(retryAfterMs !== undefined ? { retryAfterMs } : {}),
  }
}

function retryAfter(headers: unknown): number | undefined {
  if (headers === null || typeof headers !== 'object') return undefined
  const h = new Map(Object.entries(headers as Record<string, unknown>).map(([k, v]) => [k.toLowerCase(), String(v)]))
  const ms = Number(h.get('retry-after-ms'))
  if (h.has('retry-after-ms') && Number.isFinite(ms) && ms >= 0) return ms
  const value = h.get('retry-after')
  if (value === undefined) return undefined
  const seconds = Number(value)
  if (value.trim() !== '' && Number.isFinite(seconds) && seconds >= 0) return seconds * 1000
  const date = Date.parse(value)
  return Number.isFinite(date) ? Math.max(0, date - Date.now()) : undefined
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason)
    const done = () => {
      signal?.removeEventListener('abort', abort)
      resolve()
    }
    const timer = setTimeout(done, ms)
    const abort = () => {
      clearTimeout(timer)
      reject(signal!.reason)
    }
    signal?.addEventListener('abort', abort, { once: true })
  })
}
