import { AsyncLocalStorage } from 'node:async_hooks'
import { afterAll, describe, it } from 'vitest'
import type { Context } from '@opentelemetry/api'
import { installTracing } from '../telemetry/otel.js'
import { checkAgentSpans } from '../telemetry/agent-spans.js'

describe('OpenTelemetry spans (Node, in-memory exporter)', () => {
  const tracing = installTracing(new AsyncLocalStorage<Context>())
  afterAll(() => tracing.uninstall())

  it('an execution, its model calls, its tool calls and run_js, after the GenAI conventions, nested', async () => {
    await checkAgentSpans(tracing.spans, true)
  })
})
