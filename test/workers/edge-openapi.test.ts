import { SELF } from 'cloudflare:test'
import { expect, it } from 'vitest'
import { sessionRoutes } from '../../src/session/index.js'

// The Worker serves /openapi.json like the Node host (issue 17): every route of the table, each
// operation with a summary, and no token needed.
it('GET /openapi.json on the Worker: every session route, each with a summary', async () => {
  const res = await SELF.fetch('http://edge.test/openapi.json')
  expect(res.status).toBe(200)
  const doc = (await res.json()) as { openapi: string; paths: Record<string, Record<string, { summary?: string }>> }
  expect(doc.openapi).toBe('3.1.0')
  for (const route of Object.values(sessionRoutes)) {
    const op = doc.paths[route.path]?.[route.method]
    expect(op, `${route.method} ${route.path}`).toBeDefined()
    expect(op!.summary, `${route.method} ${route.path}`).toMatch(/^[A-Z].{5,}/)
  }
})
