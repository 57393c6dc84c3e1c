import type { jsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/types.js'

/**
 * A JSON Schema "validator" that accepts everything. The SDK's default (ajv) compiles schemas to code
 * with `new Function`, which workerd refuses; our tools parse their own input with zod, and results
 * from another server are bounded and handed to the model as data, so nothing here needs it.
 */
export const noSchemaCompiler: jsonSchemaValidator = {
  getValidator: () => input => ({ valid: true, data: input as never, errorMessage: undefined }),
}
