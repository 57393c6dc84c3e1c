import { context, ROOT_CONTEXT, trace, type Context, type ContextManager } from '@opentelemetry/api'
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base'

/**
 * What an app's OpenTelemetry SDK does, in the smallest form: a tracer provider exporting to
 * memory, registered globally, and (where the runtime has one) a context manager over
 * AsyncLocalStorage, which is what carries a request's span into work it starts.
 */
export function installTracing(als?: { run<R>(store: Context, fn: () => R): R; getStore(): Context | undefined }): {
  exporter: InMemorySpanExporter
  spans(): ReadableSpan[]
  uninstall(): void
} {
  const exporter = new InMemorySpanExporter()
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] })
  trace.setGlobalTracerProvider(provider)
  if (als) context.setGlobalContextManager(alsContextManager(als))
  return {
    exporter,
    spans: () => exporter.getFinishedSpans(),
    uninstall: () => {
      trace.disable()
      context.disable()
    },
  }
}

function alsContextManager(als: { run<R>(store: Context, fn: () => R): R; getStore(): Context | undefined }): ContextManager {
  const manager: ContextManager = {
    active: () => als.getStore() ?? ROOT_CONTEXT,
    with: (ctx, fn, thisArg, ...args) => als.run(ctx, () => fn.apply(thisArg, args)),
    bind: (ctx, target) =>
      (typeof target === 'function'
        ? (...args: unknown[]) => manager.with(ctx, target as (...a: unknown[]) => unknown, undefined, ...args)
        : target) as typeof target,
    enable: () => manager,
    disable: () => manager,
  }
  return manager
}

/** The span's parent span id (sdk-trace 2: `parentSpanContext`). */
export const parentOf = (span: ReadableSpan) => span.parentSpanContext?.spanId

/** The spans named `name` (exactly, or starting with it when it ends with a space). */
export const named = (spans: ReadableSpan[], name: string) =>
  spans.filter(s => (name.endsWith(' ') ? s.name.startsWith(name) : s.name === name))
