import { CfWorkerJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/cfworker'
import type { JsonSchemaType, JsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/types.js'

type Draft = '4' | '7' | '2019-09' | '2020-12'

/**
 * The SDK's JSON Schema validator made for workerd (`@cfworker/json-schema`: no code generation,
 * which Workers forbid, unlike ajv), so schemas are checked the same way on every runtime.
 */
export const schemaValidator = new CfWorkerJsonSchemaValidator()

/** The draft a schema names in `$schema` (2020-12, MCP's default, when it names none). */
function draftOf(schema: Record<string, unknown>): Draft {
  const name = typeof schema.$schema === 'string' ? schema.$schema : ''
  if (name.includes('draft-04')) return '4'
  if (name.includes('draft-07') || name.includes('draft-06')) return '7'
  if (name.includes('2019-09')) return '2019-09'
  return '2020-12'
}

/** A check of input against a remote tool's published input schema. */
export function inputCheck(schema: Record<string, unknown>): JsonSchemaValidator<unknown> {
  return new CfWorkerJsonSchemaValidator({ draft: draftOf(schema), shortcircuit: false }).getValidator(schema as JsonSchemaType)
}
