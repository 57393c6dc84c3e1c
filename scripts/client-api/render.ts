// Renders src/client/api-schemas.gen.ts and api-routes.gen.ts, the typed route table of agent-vfs/client, from the session API's
// OpenAPI document (sessionOpenApiDocument) and the names of the server's route tables: one list of
// routes, the server's. scripts/client-api.ts writes the file; test/node/client-api-gen.test.ts fails
// when it is stale.
import prettier from 'prettier'

/** The subset of JSON Schema the session API's document uses. */
interface JsonSchema {
  type?: string | string[]
  $ref?: string
  enum?: unknown[]
  const?: unknown
  properties?: Record<string, JsonSchema>
  required?: string[]
  additionalProperties?: boolean | JsonSchema
  items?: JsonSchema
  anyOf?: JsonSchema[]
  oneOf?: JsonSchema[]
  allOf?: JsonSchema[]
  description?: string
}
interface Parameter {
  name: string
  in: string
  required?: boolean
  schema: JsonSchema
}
interface Operation {
  summary?: string
  parameters?: Parameter[]
  requestBody?: { content: Record<string, { schema?: JsonSchema }> }
  responses: Record<string, { description?: string; content?: Record<string, { schema?: JsonSchema }> }>
}
/** What the renderer reads of an OpenAPI 3.1 document. */
export interface OpenApiDocument {
  paths: Record<string, Record<string, Operation>>
  components?: { schemas?: Record<string, JsonSchema> }
}
/** A named route of a server route table: `createRoute(...)`'s method and path. */
export type RouteTable = Record<string, { method: string; path: string }>

const quote = (s: string) => JSON.stringify(s)
const key = (s: string) => (/^[A-Za-z_$][\w$]*$/.test(s) ? s : quote(s))
const doc = (text: string | undefined, indent = '') => (text ? `${indent}/** ${text.replace(/\*\//g, '*\\/')} */\n` : '')

/** The TypeScript type of a JSON schema (refs name the `SessionApiSchemas` interface). */
export function typeOf(s: JsonSchema | undefined): string {
  if (!s || Object.keys(s).length === 0) return 'unknown'
  if (s.$ref) return `SessionApiSchemas[${quote(s.$ref.replace('#/components/schemas/', ''))}]`
  if (s.const !== undefined) return JSON.stringify(s.const)
  if (s.enum) return s.enum.map(v => JSON.stringify(v)).join(' | ')
  if (s.anyOf ?? s.oneOf) return (s.anyOf ?? s.oneOf)!.map(x => `(${typeOf(x)})`).join(' | ')
  if (s.allOf) return s.allOf.map(x => `(${typeOf(x)})`).join(' & ')
  const types = Array.isArray(s.type) ? s.type : s.type ? [s.type] : []
  if (types.length > 1) return types.map(t => typeOf({ ...s, type: t })).join(' | ')
  switch (types[0]) {
    case 'string':
      return 'string'
    case 'number':
    case 'integer':
      return 'number'
    case 'boolean':
      return 'boolean'
    case 'null':
      return 'null'
    case 'array':
      return `Array<${typeOf(s.items)}>`
    case 'object':
      return objectType(s)
    default:
      return s.properties ? objectType(s) : 'unknown'
  }
}

function objectType(s: JsonSchema): string {
  const required = new Set(s.required ?? [])
  const fields = Object.entries(s.properties ?? {}).map(
    ([name, p]) => `${doc(p.description)}${key(name)}${required.has(name) ? '' : '?'}: ${typeOf(p)}`,
  )
  const extra = s.additionalProperties
  if (extra === true || (typeof extra === 'object' && extra !== null)) fields.push(`[key: string]: unknown`)
  // A documented field starts its own line, so its comment stays above it.
  const separator = Object.values(s.properties ?? {}).some(p => p.description) ? '\n' : '; '
  return fields.length ? `{ ${fields.join(separator)} }` : extra === false ? '{}' : 'Record<string, unknown>'
}

/** `{ a: string; b?: number }` of the parameters found `where` (path or query). */
function paramsType(op: Operation, where: string): string {
  const ps = (op.parameters ?? []).filter(p => p.in === where)
  if (!ps.length) return '{}'
  return `{ ${ps.map(p => `${key(p.name)}${p.required ? '' : '?'}: ${typeOf(p.schema)}`).join('; ')} }`
}

/** How a route's request body is sent: JSON, raw bytes, a multipart form, or none. */
function bodyKind(op: Operation): 'json' | 'bytes' | 'multipart' | 'none' {
  const content = op.requestBody?.content ?? {}
  if (content['application/json']) return 'json'
  if (content['multipart/form-data']) return 'multipart'
  if (content['application/octet-stream']) return 'bytes'
  return 'none'
}

/** A route answers JSON (parsed) or something else (the client hands back the `Response`). */
function responseKind(op: Operation): 'json' | 'raw' {
  const ok = Object.entries(op.responses).filter(([status]) => /^2/.test(status))
  return ok.length > 0 && ok.every(([, r]) => r.content?.['application/json']) ? 'json' : 'raw'
}

/** The successful answers by status (the errors are SessionApiError: their statuses are listed in `errors`). */
function responsesType(op: Operation): string {
  const entries = Object.entries(op.responses)
    .filter(([status]) => /^[23]/.test(status))
    .map(([status, r]) => {
      const json = r.content?.['application/json']
      return `${doc(r.description)}${status}: ${json ? typeOf(json.schema) : 'Response'}`
    })
  return `{ ${entries.join('\n')} }`
}

/** The error statuses a route declares, e.g. `400 | 401 | 404`. */
const errorStatuses = (op: Operation) =>
  Object.keys(op.responses)
    .filter(status => /^[45]/.test(status))
    .join(' | ') || 'never'

function operation(name: string, route: { method: string; path: string }, document: OpenApiDocument) {
  const path = route.path.replace(/:(\w+)/g, '{$1}')
  const op = document.paths[path]?.[route.method.toLowerCase()]
  if (!op) throw new Error(`route ${name} (${route.method} ${path}) is not in the OpenAPI document`)
  const body = bodyKind(op)
  const json = op.requestBody?.content['application/json']?.schema
  const bodyType = body === 'json' ? typeOf(json) : body === 'bytes' ? 'BodyInit' : body === 'multipart' ? 'FormData' : 'never'
  const type =
    `${doc(`${op.summary ?? name}: \`${route.method.toUpperCase()} ${path}\``, '  ')}  ${name}: { ` +
    `params: ${paramsType(op, 'path')}; query: ${paramsType(op, 'query')}; body: ${bodyType}; responses: ${responsesType(op)}; errors: ${errorStatuses(op)} }\n`
  const table = `  ${name}: { method: ${quote(route.method.toUpperCase())}, path: ${quote(path)}, body: ${quote(body)}, response: ${quote(responseKind(op))} },\n`
  return { type, table }
}

const HEADER =
  `// GENERATED by scripts/client-api.ts from the session API's OpenAPI document (sessionOpenApiDocument)\n` +
  `// and the server's route tables: do not edit. Regenerate: npm run client-api\n` +
  `// test/node/client-api-gen.test.ts fails when this file differs from what the server serves.\n\n`

/** The generated files of agent-vfs/client (path → text), formatted as the repository formats TypeScript. */
export async function renderClientApi(document: OpenApiDocument, tables: RouteTable[]): Promise<Record<string, string>> {
  const schemas = Object.entries(document.components?.schemas ?? {})
    .map(([name, s]) => `${doc(s.description, '  ')}  ${key(name)}: ${typeOf(s)}\n`)
    .join('')
  const ops = tables.flatMap(t => Object.entries(t)).map(([name, route]) => operation(name, route, document))
  const schemaFile =
    HEADER +
    `/** The schemas of the session API (\`components.schemas\` of its OpenAPI document). */\n` +
    `export interface SessionApiSchemas {\n${schemas}}\n\n` +
    `/** How each route is called at run time: its method, path template, body and answer kinds. */\n` +
    `export const SESSION_API_ROUTES = {\n${ops.map(o => o.table).join('')}} as const\n`
  const routeFile =
    HEADER +
    `import type { SessionApiSchemas } from './api-schemas.gen.js'\n\n` +
    `/**\n * Every route of the session API by name: path parameters, query, body, successful answers by status,\n` +
    ` * and the statuses of its errors (thrown as SessionApiError; their bodies are \`SessionApiSchemas['Error']\`).\n */\n` +
    `export interface SessionApiRoutes {\n${ops.map(o => o.type).join('')}}\n`
  const options = (await prettier.resolveConfig('src/client/index.ts')) ?? {}
  const format = (text: string) => prettier.format(text, { ...options, parser: 'typescript' })
  return { [CLIENT_API_FILES.schemas]: await format(schemaFile), [CLIENT_API_FILES.routes]: await format(routeFile) }
}

/** Where the generated files go. */
export const CLIENT_API_FILES = { schemas: 'src/client/api-schemas.gen.ts', routes: 'src/client/api-routes.gen.ts' } as const
