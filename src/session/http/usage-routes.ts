import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi'
import type { Env, MiddlewareHandler } from 'hono'
import type { SessionHost } from '../host-api.js'
import { errorResponses, json, security } from './route-parts.js'
import * as S from './schemas.js'

/** Usage figures, as `UsageTotals` (src/session/usage.ts). */
const Totals = z
  .object({
    inputTokens: z.number(),
    outputTokens: z.number(),
    totalTokens: z.number(),
    modelCalls: z.number(),
    toolCalls: z.number(),
    runJsCpuMs: z.number(),
    bytesWritten: z.number(),
  })
  .openapi('UsageTotals')
const SessionUsage = z
  .object({
    sessionId: z.string(),
    total: Totals,
    executions: z.array(Totals.extend({ id: z.string(), status: z.string(), budgetExceeded: z.unknown().optional() })),
    storage: z
      .object({ files: z.number(), history: z.number() })
      .openapi({ description: "Bytes stored now: files, and history (what writes replaced); both count against the owner's maxBytes" }),
  })
  .openapi('SessionUsage')
const OwnerUsage = z
  .object({ owner: z.string(), total: Totals, sessions: z.array(z.object({ id: z.string(), total: Totals })) })
  .openapi('OwnerUsage')

const { 401: unauthorized, 404: notFound } = errorResponses('No such session (or it belongs to another owner)')
const errors = { 401: unauthorized, 404: notFound }

/** The usage routes: their own table next to `sessionRoutes` (both hosts serve both; the OpenAPI document lists both). */
export const usageRoutes = {
  sessionUsage: createRoute({
    method: 'get',
    summary: "What the session's executions spent: tokens, model and tool calls, run_js CPU time, bytes written",
    path: '/sessions/{id}/usage',
    security,
    request: { params: S.IdParams },
    responses: { 200: json(SessionUsage, 'Each execution and the sum'), ...errors },
  }),
  ownerUsage: createRoute({
    method: 'get',
    summary: 'What all your sessions spent (deleted ones included in the total)',
    path: '/usage',
    security,
    responses: { 200: json(OwnerUsage, 'Each live session and the sum'), 401: errors[401] },
  }),
} as const

/**
 * Adds the usage routes to a session app: `GET /sessions/{id}/usage` (the caller must own the
 * session) and `GET /usage` (the caller's own). `auth` guards `/usage`, which is outside `/sessions`.
 */
export function addUsageRoutes<E extends Env & { Variables: { owner: string } }>(
  // Any app whose context has the caller's `owner` (set by `auth`).
  app: OpenAPIHono<E>,
  host: Pick<SessionHost, 'get' | 'usage' | 'ownerUsage'>,
  auth: MiddlewareHandler,
): void {
  app.use('/usage', auth)
  app.openapi(usageRoutes.sessionUsage, async c => {
    const { id } = c.req.valid('param')
    await host.get(id, c.get('owner'))
    return c.json(await host.usage(id), 200)
  })
  app.openapi(usageRoutes.ownerUsage, async c => c.json(await host.ownerUsage(c.get('owner')), 200))
}
