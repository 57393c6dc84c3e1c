import { OpenAPIHono } from '@hono/zod-openapi'
import { sessionRoutes } from './routes.js'
import { usageRoutes } from './usage-routes.js'

/** What `/openapi.json` says about the API. */
export const SESSION_API_INFO = { title: 'agent-vfs sessions', version: '1' } as const

/**
 * The OpenAPI 3.1 document of the session API, built from the route table. For hosts that serve
 * the routes without mounting {@link createSessionApp} in one piece, such as the Worker (its front
 * answers two routes and forwards the rest to a Durable Object).
 */
export function sessionOpenApiDocument(): ReturnType<OpenAPIHono['getOpenAPI31Document']> {
  const app = new OpenAPIHono()
  app.openAPIRegistry.registerComponent('securitySchemes', 'bearer', { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' })
  for (const route of [...Object.values(sessionRoutes), ...Object.values(usageRoutes)]) app.openAPIRegistry.registerPath(route)
  return app.getOpenAPI31Document({ openapi: '3.1.0', info: SESSION_API_INFO })
}
