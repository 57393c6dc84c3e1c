import type { LandResult } from 'agent-vfs'
import type { OpenAPIHono } from '@hono/zod-openapi'
import type { Context } from 'hono'
import type { AuthEnv } from './auth.js'
import { parsePoint } from '../run/change-points.js'
import type { SessionHost } from '../host-api.js'
import type { ForkPoint } from '../fork/fork.js'
import type { SessionRecord } from '../types.js'
import { changeRoutes as R } from './change-routes.js'
import { errorResponse } from './errors.js'

/** A landed revert or branch commit (200), or its conflicts with nothing written (409). */
function landedResponse(c: Context, result: LandResult) {
  if (result.ok) return c.json({ version: result.version, changes: result.changes }, 200)
  const paths = result.conflicts.map(x => x.path)
  const message = `nothing was written: ${paths.length} file(s) changed since (${paths.slice(0, 3).join(', ')}${paths.length > 3 ? ', …' : ''})`
  return c.json({ error: { code: 'conflict' as const, message }, conflicts: result.conflicts }, 409)
}

/**
 * The handlers of {@link changeRoutes} (history, diff, revert, fork, branches) on the session app.
 * `ownedId` checks the caller owns the route's session (another owner's is not found).
 */
export function serveChanges(
  app: OpenAPIHono<AuthEnv>,
  host: SessionHost,
  ownedId: (c: { get(key: 'session'): AuthEnv['Variables']['session'] }) => Promise<string>,
  options: { forks: boolean | ((sessionId: string, at: ForkPoint, options: { title?: string }) => Promise<SessionRecord>) },
): void {
  const owned = ownedId
  app.openapi(R.history, async c => {
    const id = await owned(c)
    return c.json({ entries: await host.changes.history(id, c.req.valid('query')) }, 200)
  })
  app.openapi(R.diff, async c => {
    const id = await owned(c)
    const q = c.req.valid('query')
    const from = q.execution ? `${q.execution}:start` : q.from
    const to = q.execution ? `${q.execution}:end` : q.to
    const diff = await host.changes.diff(id, {
      ...(from ? { from: parsePoint(from) } : {}),
      ...(to ? { to: parsePoint(to) } : {}),
      ...(q.path ? { path: q.path } : {}),
      patches: q.patches !== '0' && q.patches !== 'false',
    })
    return c.json(diff, 200)
  })
  app.openapi(R.revertExecution, async c => {
    const id = await owned(c)
    return landedResponse(c, await host.changes.revertExecution(id, c.req.valid('param').executionId))
  })
  app.openapi(R.fork, async c => {
    const id = await owned(c)
    if (!options.forks)
      return errorResponse(c, 501, 'not-implemented', 'this host cannot fork sessions (each session is its own store): fork on a Node host')
    const { at, title } = c.req.valid('json')
    const fork = typeof options.forks === 'function' ? options.forks : host.fork
    return c.json(await fork(id, at, title !== undefined ? { title } : {}), 201)
  })
  app.openapi(R.listBranches, async c => {
    const id = await owned(c)
    return c.json(await host.changes.branches(id), 200)
  })
  app.openapi(R.diffBranch, async c => {
    const id = await owned(c)
    return c.json(await host.changes.diffBranch(id, c.req.valid('param').name), 200)
  })
  app.openapi(R.commitBranch, async c => {
    const id = await owned(c)
    return landedResponse(c, await host.changes.commitBranch(id, c.req.valid('param').name))
  })
  app.openapi(R.discardBranch, async c => {
    const id = await owned(c)
    await host.changes.discardBranch(id, c.req.valid('param').name)
    return c.json({ ok: true as const }, 200)
  })
}
