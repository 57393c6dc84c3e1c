import { afterAll, describe, it } from 'vitest'
import { workerdEngine } from '../../src/runtimes/workerd/index.js'
import { installTracing } from '../telemetry/otel.js'
import { checkAgentSpans } from '../telemetry/agent-spans.js'

// workerd without nodejs_compat has no AsyncLocalStorage, so no context manager: the task loop's
// own nesting (execution → model call / tool call) must hold without one.
describe('OpenTelemetry spans in workerd (in-memory exporter)', () => {
  const tracing = installTracing()
  afterAll(() => tracing.uninstall())

  it('an execution, its model calls, its tool calls and run_js, after the GenAI conventions', async () => {
    await checkAgentSpans(tracing.spans, false, { engine: workerdEngine(), typescript: false })
  })
})
