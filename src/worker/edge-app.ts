import { OpenAPIHono } from '@hono/zod-openapi'
import type { MiddlewareHandler } from 'hono'
import {
  bearerAuth,
  bodyLimits,
  errorResponse,
  newSessionId,
  resolveBodyLimits,
  sessionOpenApiDocument,
  sessionRoutes,
  SESSION_ID,
  toErrorResponse,
  traceRequests,
  usageRoutes,
} from 'agent-vfs/session'
import { d1OwnerIndex, sessionOwner } from './d1-owner-index.js'
import { configureEdge, jwtSecret, type EdgeEnv, type EdgeOptions } from './options.js'

/** The hono environment of the edge app: the Worker's bindings, and the caller once authenticated. */
export type EdgeAppEnv = { Bindings: EdgeEnv; Variables: { owner: string } }

/**
 * The Worker's session API, the same routes and auth as the Node host (`createSessionApp`):
 *
 * - every `/sessions…` request needs `Authorization: Bearer <jwt>` (HS256, signed with the
 *   `AGENT_VFS_JWT_SECRET` secret; `sub` is the owner): none or a bad one is 401;
 * - `POST /sessions` picks a new id and creates the session in the `SessionObject` of that name
 *   (the owner's `maxSessions` is checked in D1, atomically); `GET /sessions` lists the caller's
 *   sessions from D1, newest first, paged;
 * - `/sessions/:id/**` goes to that session's object only when its D1 row names the caller as the
 *   owner: another owner's session, like a missing or malformed id, is 404 and wakes no object.
 *
 * Call it once, at the top level of the script that also exports `SessionObject`: its options
 * configure the objects too. Mount it as the Worker (`export default createEdgeApp(…)`) or inside
 * your own hono app (`app.route('/', createEdgeApp(…))`).
 */
export function createEdgeApp(options: EdgeOptions): OpenAPIHono<EdgeAppEnv> {
  configureEdge(options)
  const app = new OpenAPIHono<EdgeAppEnv>({
    defaultHook: (result, c) => {
      if (!result.success) {
        const issue = result.error.issues[0]
        return errorResponse(c, 400, 'invalid', issue ? `${issue.path.join('.') || 'body'}: ${issue.message}` : 'invalid request')
      }
    },
  })
  app.onError((error, c) => {
    const response = toErrorResponse(error, c)
    if (response.status === 500) console.error(error)
    return response
  })

  app.use('*', traceRequests())
  // The same document as the Node host's /openapi.json, built once per isolate; no token needed.
  let openApi: ReturnType<typeof sessionOpenApiDocument> | undefined
  app.get('/openapi.json', c => c.json((openApi ??= sessionOpenApiDocument())))

  // One verifier per secret (a rotated secret gets its own).
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- hono's bearer middleware is generic over any env
  const verifiers = new Map<string, MiddlewareHandler<any>>()
  const auth: MiddlewareHandler<EdgeAppEnv> = async (c, next) => {
    let secret: string
    try {
      secret = jwtSecret(c.env)
    } catch (error) {
      return errorResponse(c, 500, 'misconfigured', (error as Error).message)
    }
    let verify = verifiers.get(secret)
    if (!verify) verifiers.set(secret, (verify = bearerAuth({ secret })))
    return verify!(c, next)
  }
  app.use('/sessions', auth)
  app.use('/sessions/*', auth)
  app.use('/usage', auth)
  // Bounded here, before a body reaches an object: read to its end (an object cannot read a request
  // stream once it answered), and handed on as bytes of a known length.
  app.use('/sessions/*', bodyLimits(resolveBodyLimits(options)))

  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- hono's typed context per route is checked by the route table's schemas
  const h = app as unknown as { openapi(route: unknown, handler: (c: any) => unknown): void }
  h.openapi(sessionRoutes.createSession, async c => {
    const { profile, title } = c.req.valid('json')
    const id = newSessionId()
    const env = c.env as EdgeEnv
    const result = await env.SESSIONS.getByName(id).createSession({
      id,
      owner: c.get('owner'),
      profile,
      ...(title !== undefined ? { title } : {}),
    })
    if ('error' in result) return errorResponse(c, result.error.status as 400, result.error.code, result.error.message)
    return c.json(result.record, 201)
  })
  h.openapi(sessionRoutes.listSessions, async c => {
    const { cursor, limit } = c.req.valid('query')
    return c.json(
      await d1OwnerIndex((c.env as EdgeEnv).DB).list(c.get('owner'), {
        ...(cursor !== undefined ? { cursor } : {}),
        limit: limit ?? 20,
      }),
      200,
    )
  })

  // The owner's usage from D1 (each session's object stores its figures there when a run stops).
  h.openapi(usageRoutes.ownerUsage, async c => {
    const owner = c.get('owner')
    const { total, sessions } = await d1OwnerIndex((c.env as EdgeEnv).DB).usage!(owner)
    return c.json({ owner, total, sessions }, 200)
  })

  const forward: MiddlewareHandler<EdgeAppEnv> = async c => {
    const id = c.req.param('id') ?? ''
    // Checked before D1 and before any object: a hostile id names nothing.
    if (!SESSION_ID.test(id) || (await sessionOwner(c.env.DB, id)) !== c.get('owner')) {
      return errorResponse(
        c,
        404,
        'not-found',
        `There is no session ${JSON.stringify(id.slice(0, 64))}: check the id; list your sessions to find it`,
      )
    }
    return c.env.SESSIONS.getByName(id).fetch(c.req.raw)
  }
  app.all('/sessions/:id', forward)
  app.all('/sessions/:id/*', forward)
  return app
}
