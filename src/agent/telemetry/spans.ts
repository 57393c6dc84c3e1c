import { context, SpanKind, SpanStatusCode, trace, type Attributes, type Context, type Span } from '@opentelemetry/api'

/**
 * OpenTelemetry spans of the task loop, named and attributed after the GenAI semantic conventions
 * (`invoke_agent`, `chat {model}`, `execute_tool {tool}`). Through `@opentelemetry/api` only: with
 * no SDK installed by the app every call here is a no-op. Parents are passed explicitly inside an
 * execution (so the nesting holds without a context manager); the execution itself starts under
 * whatever context is active (a session request, with a context manager installed).
 */

/** The tracer's name: filter on it in the app's SDK. */
export const TRACER_NAME = 'agent-vfs'

const tracer = () => trace.getTracer(TRACER_NAME)

/** What the spans need to know about the model. */
interface ModelInfo {
  provider: string
  modelId: string
}

/** Starts the span of one run of an execution (`invoke_agent`); end it with {@link endExecutionSpan}. */
export function startExecutionSpan(model: ModelInfo, executionId: string, resumed: boolean): { span: Span; ctx: Context } {
  const span = tracer().startSpan(
    'invoke_agent agent-vfs',
    {
      kind: SpanKind.INTERNAL,
      attributes: {
        'gen_ai.operation.name': 'invoke_agent',
        'gen_ai.agent.name': 'agent-vfs',
        'gen_ai.agent.id': executionId,
        'gen_ai.provider.name': model.provider,
        'gen_ai.request.model': model.modelId,
        'agent_vfs.execution.id': executionId,
        'agent_vfs.execution.resumed': resumed,
      },
    },
    context.active(),
  )
  return { span, ctx: trace.setSpan(context.active(), span) }
}

/** Ends an execution span with how the run ended and what it spent. */
export function endExecutionSpan(
  span: Span,
  end: { status: string; error?: { code: string; message: string }; usage: { inputTokens: number; outputTokens: number } },
): void {
  span.setAttributes({
    'agent_vfs.execution.status': end.status,
    'gen_ai.usage.input_tokens': end.usage.inputTokens,
    'gen_ai.usage.output_tokens': end.usage.outputTokens,
  })
  if (end.error) {
    span.setAttribute('error.type', end.error.code)
    span.setStatus({ code: SpanStatusCode.ERROR, message: end.error.message })
  }
  span.end()
}

/** A token count as v2 (a number) or v3/v4 (`{ total }`) report it. */
function tokens(value: unknown): number | undefined {
  if (typeof value === 'number') return value
  const total = (value as { total?: unknown } | undefined)?.total
  return typeof total === 'number' ? total : undefined
}

/** A finish reason as v2 (a string) or v3/v4 (`{ unified }`) report it. */
function finishReason(value: unknown): string | undefined {
  if (typeof value === 'string') return value
  const unified = (value as { unified?: unknown } | undefined)?.unified
  return typeof unified === 'string' ? unified : undefined
}

/** Runs one model call in a `chat {model}` span (client kind) under `parent`. */
export async function traceModelCall<R>(
  parent: Context,
  model: ModelInfo,
  maxOutputTokens: number | undefined,
  call: () => PromiseLike<R>,
): Promise<R> {
  const attributes: Attributes = {
    'gen_ai.operation.name': 'chat',
    'gen_ai.provider.name': model.provider,
    'gen_ai.request.model': model.modelId,
    ...(maxOutputTokens !== undefined ? { 'gen_ai.request.max_tokens': maxOutputTokens } : {}),
  }
  const span = tracer().startSpan(`chat ${model.modelId}`, { kind: SpanKind.CLIENT, attributes }, parent)
  return within(span, parent, call, result => {
    const r = result as {
      finishReason?: unknown
      usage?: { inputTokens?: unknown; outputTokens?: unknown }
      response?: { modelId?: unknown; id?: unknown }
    }
    const input = tokens(r?.usage?.inputTokens)
    const output = tokens(r?.usage?.outputTokens)
    const reason = finishReason(r?.finishReason)
    span.setAttributes({
      ...(input !== undefined ? { 'gen_ai.usage.input_tokens': input } : {}),
      ...(output !== undefined ? { 'gen_ai.usage.output_tokens': output } : {}),
      ...(reason !== undefined ? { 'gen_ai.response.finish_reasons': [reason] } : {}),
      ...(typeof r?.response?.modelId === 'string' ? { 'gen_ai.response.model': r.response.modelId } : {}),
      ...(typeof r?.response?.id === 'string' ? { 'gen_ai.response.id': r.response.id } : {}),
    })
  })
}

/** Runs one tool call in an `execute_tool {tool}` span under `parent`; the tool runs with the span active (run_js nests under it). */
export async function traceToolCall<R extends { ok: boolean; part?: { output?: { value?: unknown } } }>(
  parent: Context,
  call: { toolName: string; toolCallId: string },
  run: () => Promise<R>,
): Promise<R> {
  const span = tracer().startSpan(
    `execute_tool ${call.toolName}`,
    {
      kind: SpanKind.INTERNAL,
      attributes: {
        'gen_ai.operation.name': 'execute_tool',
        'gen_ai.tool.name': call.toolName,
        'gen_ai.tool.call.id': call.toolCallId,
        'gen_ai.tool.type': 'function',
      },
    },
    parent,
  )
  return within(span, parent, run, outcome => {
    if (outcome.ok) return
    const message = outcome.part?.output?.value
    span.setAttribute('error.type', 'tool_error')
    span.setStatus({ code: SpanStatusCode.ERROR, ...(typeof message === 'string' ? { message: message.slice(0, 500) } : {}) })
  })
}

/** Runs one run_js program in a `run_js` span under the active context (the `execute_tool run_js` span in the task loop). */
export async function traceRunJs<R extends { success: boolean; cpuMs?: number; error?: { name: string; message: string } }>(
  run: () => Promise<R>,
): Promise<R> {
  const span = tracer().startSpan('run_js', { kind: SpanKind.INTERNAL, attributes: { 'gen_ai.operation.name': 'execute_tool' } })
  return within(span, context.active(), run, outcome => {
    span.setAttributes({
      'agent_vfs.run_js.success': outcome.success,
      ...(outcome.cpuMs !== undefined ? { 'agent_vfs.run_js.cpu_ms': outcome.cpuMs } : {}),
    })
    if (outcome.success) return
    span.setAttribute('error.type', outcome.error?.name ?? 'Error')
    span.setStatus({ code: SpanStatusCode.ERROR, message: outcome.error?.message ?? 'the program failed' })
  })
}

/** Runs `run` with `span` active under `parent`; `done` reads its result onto the span; a throw marks it failed. The span ends either way. */
async function within<R>(span: Span, parent: Context, run: () => PromiseLike<R>, done: (result: R) => void): Promise<R> {
  try {
    const result = await context.with(trace.setSpan(parent, span), run)
    done(result)
    return result
  } catch (error) {
    failSpan(span, error)
    throw error
  } finally {
    span.end()
  }
}

function failSpan(span: Span, error: unknown): void {
  const e = error instanceof Error ? error : new Error(String(error))
  span.recordException(e)
  span.setAttribute('error.type', e.name)
  span.setStatus({ code: SpanStatusCode.ERROR, message: e.message })
}
