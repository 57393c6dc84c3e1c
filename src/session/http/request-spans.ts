import { context, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api'
import type { MiddlewareHandler } from 'hono'
import { routePath } from 'hono/route'
import { TRACER_NAME } from 'agent-vfs/agent'

/**
 * One OpenTelemetry server span per request (`{method} {route}`, HTTP semantic conventions:
 * `http.request.method`, `http.route`, `url.path`, `http.response.status_code`), active while the
 * request is handled, so an execution a request starts is its child (with the app's context
 * manager). A no-op without an SDK. Put it first, before auth: a refused request is traced too.
 */
export function traceRequests(): MiddlewareHandler {
  return async (c, next) => {
    const method = c.req.method
    const span = trace
      .getTracer(TRACER_NAME)
      .startSpan(
        method,
        { kind: SpanKind.SERVER, attributes: { 'http.request.method': method, 'url.path': new URL(c.req.url).pathname } },
        context.active(),
      )
    try {
      await context.with(trace.setSpan(context.active(), span), next)
    } finally {
      const route = routePath(c, -1)
      if (route && route !== '*' && route !== '/*') {
        span.updateName(`${method} ${route}`)
        span.setAttribute('http.route', route)
      }
      const status = c.res.status
      span.setAttribute('http.response.status_code', status)
      if (status >= 500) {
        span.setAttribute('error.type', String(status))
        span.setStatus({ code: SpanStatusCode.ERROR })
      }
      span.end()
    }
  }
}
