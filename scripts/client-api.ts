// `npm run client-api`: writes src/client/api-schemas.gen.ts and api-routes.gen.ts (the typed routes of
// agent-vfs/client) from the session API's OpenAPI document and its route tables; `--check` exits 1
// when they are stale (test/node/client-api-gen.test.ts checks the same).
import { readFileSync, writeFileSync } from 'node:fs'
import { sessionOpenApiDocument, sessionRoutes, usageRoutes } from 'agent-vfs/session'
import { renderClientApi, type OpenApiDocument } from './client-api/render.js'

/** The files as the server's routes make them today (path → text). */
export function currentClientApi(): Promise<Record<string, string>> {
  return renderClientApi(sessionOpenApiDocument() as unknown as OpenApiDocument, [sessionRoutes, usageRoutes])
}

/** The generated files that differ from what is on disk. */
export async function staleClientApi(): Promise<string[]> {
  const want = await currentClientApi()
  return Object.keys(want).filter(file => {
    try {
      return readFileSync(file, 'utf8') !== want[file]
    } catch {
      return true
    }
  })
}

if (process.argv[1]?.endsWith('client-api.ts')) {
  if (process.argv.includes('--check')) {
    const stale = await staleClientApi()
    if (stale.length) {
      console.error(`stale: ${stale.join(', ')}; run npm run client-api`)
      process.exit(1)
    }
  } else for (const [file, text] of Object.entries(await currentClientApi())) writeFileSync(file, text)
}
