import { ToolError, type AgentTool } from 'agent-vfs/agent'
import type { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { McpError, ErrorCode, type CallToolResult, type Tool } from '@modelcontextprotocol/sdk/types.js'
import { z } from 'zod'
import { MAX_SCHEMA_CHARS } from './config.js'
import { inputCheck } from '../schema-validator.js'

/** What a remote tool needs to be called: its server's client and bounds. */
export interface RemoteToolTarget {
  server: string
  client: () => Client
  timeoutMs: number
  maxResultChars: number
}

/**
 * A remote MCP tool as an {@link AgentTool}: the model reads the server's own description and input
 * schema; the input is checked against that schema here (the SDK's workerd-safe validator), then sent. It names no workspace
 * paths (`access: 'none'`), so policy rules decide it by its name. A call ends at its timeout or
 * when the run's signal aborts, whichever comes first; a result longer than the bound, a tool error
 * and a dead server are {@link ToolError}s that say what happened and what to do.
 */
export function remoteTool(target: RemoteToolTarget, tool: Tool): AgentTool<Record<string, unknown>, unknown> {
  const published = (tool.inputSchema ?? { type: 'object' }) as Record<string, unknown>
  const { $schema: _s, $id: _i, id: _id, ...schema } = published
  if (JSON.stringify(schema).length > MAX_SCHEMA_CHARS)
    throw new TypeError(`MCP server ${target.server}: the input schema of ${tool.name} is larger than ${MAX_SCHEMA_CHARS} characters`)
  const label = `${target.server}.${tool.name}`
  // Checked here, before the input leaves: many servers trust their clients to follow the schema.
  const check = inputCheck(published)
  return {
    description: `${tool.description ?? tool.title ?? tool.name} (MCP server ${target.server})`.slice(0, 4000),
    // Any object passes here; its schema is what the model is shown (toolSpecs reads the metadata).
    inputSchema: z.record(z.string(), z.unknown()).meta(schema),
    kind: 'work',
    access: () => ({ access: 'none', paths: [] }),
    async execute(input, options = {}) {
      if (input === null || typeof input !== 'object' || Array.isArray(input))
        throw new ToolError('invalid-input', `${label} takes an object.`, 'call it with the fields its schema describes.')
      let verdict: ReturnType<typeof check>
      try {
        verdict = check(input)
      } catch (error) {
        throw new ToolError('failed', `${label}: its input schema cannot be checked (${String(error).slice(0, 200)}).`, 'do without it.')
      }
      if (!verdict.valid)
        throw new ToolError(
          'invalid-input',
          `${label} refused before sending: the input does not fit its schema: ${String(verdict.errorMessage).slice(0, 1000)}`,
          'call it again with the fields and types its schema describes.',
        )
      let result: CallToolResult
      try {
        result = (await target.client().callTool({ name: tool.name, arguments: input }, undefined, {
          timeout: target.timeoutMs,
          ...(options.abortSignal ? { signal: options.abortSignal } : {}),
        })) as CallToolResult
      } catch (error) {
        throw callFailure(label, target.timeoutMs, error, options.abortSignal)
      }
      const text = resultText(result)
      if (result.isError) throw new ToolError('failed', `${label} failed: ${text.slice(0, 2000)}`, 'fix the input or try another way.')
      const value = result.structuredContent ?? text
      const size = typeof value === 'string' ? value.length : JSON.stringify(value).length
      if (size > target.maxResultChars)
        throw new ToolError(
          'too-large',
          `${label} returned ${size} characters, more than the ${target.maxResultChars} this agent may take.`,
          'ask it for less (a narrower query, a limit).',
        )
      return value
    },
  }
}

/** The text parts of a result; other parts named, never inlined (an image's base64 is no use as text). */
function resultText(result: CallToolResult): string {
  return (result.content ?? [])
    .map(part => {
      if (part.type === 'text') return part.text
      if (part.type === 'resource_link') return `[resource ${part.uri}]`
      if (part.type === 'resource') return 'text' in part.resource ? part.resource.text : `[resource ${part.resource.uri}]`
      return `[${part.type}${'mimeType' in part ? ` ${part.mimeType}` : ''}]`
    })
    .join('\n')
}

function callFailure(label: string, timeoutMs: number, error: unknown, signal: AbortSignal | undefined): ToolError {
  if (signal?.aborted) return new ToolError('timeout', `${label} was stopped: the run ended or reached its deadline.`, 'stop.')
  if (error instanceof McpError && error.code === ErrorCode.RequestTimeout)
    return new ToolError(
      'timeout',
      `${label} did not answer within ${timeoutMs} ms.`,
      'retry once with a smaller request, or do without it.',
    )
  if (error instanceof McpError)
    return new ToolError('failed', `${label} refused the call: ${error.message}`, 'check the input against its schema and call it again.')
  const message = error instanceof Error ? error.message : String(error)
  return new ToolError(
    'unavailable',
    `The MCP server of ${label} could not be reached: ${message.slice(0, 500)}`,
    'retry later or do without it.',
  )
}
