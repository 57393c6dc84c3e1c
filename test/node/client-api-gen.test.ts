import { readFileSync } from 'node:fs'
import { expect, it } from 'vitest'
import { currentClientApi, staleClientApi } from '../../scripts/client-api.js'
import { CLIENT_API_FILES, renderClientApi, type OpenApiDocument } from '../../scripts/client-api/render.js'
import { sessionOpenApiDocument, sessionRoutes, usageRoutes } from '../../src/session/index.js'

// agent-vfs/client's routes are the server's: src/client/api-*.gen.ts are generated from the OpenAPI
// document and the route tables (scripts/client-api.ts). A route added, renamed or changed on the
// server without regenerating fails here.
it('src/client/api-*.gen.ts are what the server serves today (npm run client-api regenerates them)', async () => {
  expect(await staleClientApi(), 'stale: run npm run client-api').toEqual([])
})

it('a route the server changes makes the files stale, and every route of the tables is in them', async () => {
  const document = sessionOpenApiDocument() as unknown as OpenApiDocument
  const names = [...Object.keys(sessionRoutes), ...Object.keys(usageRoutes)]
  const routes = readFileSync(CLIENT_API_FILES.routes, 'utf8')
  const table = readFileSync(CLIENT_API_FILES.schemas, 'utf8')
  for (const name of names) {
    expect(routes).toMatch(new RegExp(`^  ${name}: \\{$`, 'm'))
    expect(table).toMatch(new RegExp(`^  ${name}: \\{ method:`, 'm'))
  }
  const changed = structuredClone(document)
  changed.paths['/sessions/{id}/messages']!.post!.requestBody!.content['application/json']!.schema = { type: 'object', properties: {} }
  const now = await currentClientApi()
  expect((await renderClientApi(changed, [sessionRoutes, usageRoutes]))[CLIENT_API_FILES.routes]).not.toBe(now[CLIENT_API_FILES.routes])
  await expect(renderClientApi(document, [{ ...sessionRoutes, ghost: { method: 'get', path: '/nowhere' } }])).rejects.toThrow(/ghost/)
})
