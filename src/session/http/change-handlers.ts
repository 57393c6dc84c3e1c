import type { LandResult } from 'agent-vfs'
import type { Context } from 'hono'
import { parsePoint } from '../run/change-points.js'
import type { SessionHost } from '../host.js'
import type { ForkPoint } from '../fork/fork.js'
import type { SessionRecord } from '../types.js'
import { changeRoutes as R } from './change-routes.js'
import { errorResponse } from './errors.js'

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- hono's typed context per route is checked by the route table's schemas
type Mount = { openapi(route: unknown, handler: (c: any) => unknown): void }

/** A landed revert or branch commit (200), or its conflicts with nothing written (409). */
function landedResponse(c: Context, result: LandResult): Response {
  if (result.ok) return c.json({ version: result.version, changes: result.changes }, 200)
  const paths = result.conflicts.map(x => x.path)
  const message = `nothing was written: ${paths.length} file(s) changed since (${paths.slice(0, 3).join(', ')}${paths.length > 3 ? ', …' : ''})`
  return c.json({ error: { code: 'conflict', message }, conflicts: result.conflicts }, 409)
}

/**
 * The handlers of {@link changeRoutes} (history, diff, revert, fork, branches) on the session app.
 * `ownedId` checks the caller owns the route's session (another owner's is not found).
 */
export function serveChanges(
  app: object,
  host: SessionHost,
  ownedId: (c: never) => Promise<string>,
  options: { forks: boolean | ((sessionId: string, at: ForkPoint, options: { title?: string }) => Promise<SessionRecord>) },
): void {
  const h = app as Mount
  const owned = ownedId as (c: unknown) => Promise<string>
  h.openapi(R.history, async c => {
    const id = await owned(c)
    return c.json({ entries: await host.changes.history(id, c.req.valid('query')) }, 200)
  })
  h.openapi(R.diff, async c => {
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
  h.openapi(R.revertExecution, async c => {
    const id = await owned(c)
    return landedResponse(c, await host.changes.revertExecution(id, c.req.valid('param').executionId))
  })
  h.openapi(R.fork, async c => {
    const id = await owned(c)
    if (!options.forks)
      return errorResponse(c, 501, 'not-implemented', 'this host cannot fork sessions (each session is its own store): fork on a Node host')
    const { at, title } = c.req.valid('json')
    const fork = typeof options.forks === 'function' ? options.forks : host.fork
    return c.json(await fork(id, at, title !== undefined ? { title } : {}), 201)
  })
  h.openapi(R.listBranches, async c => {
    const id = await owned(c)
    return c.json(await host.changes.branches(id), 200)
  })
  h.openapi(R.diffBranch, async c => {
    const id = await owned(c)
    return c.json(await host.changes.diffBranch(id, c.req.valid('param').name), 200)
  })
  h.openapi(R.commitBranch, async c => {
    const id = await owned(c)
    return landedResponse(c, await host.changes.commitBranch(id, c.req.valid('param').name))
  })
  h.openapi(R.discardBranch, async c => {
    const id = await owned(c)
    await host.changes.discardBranch(id, c.req.valid('param').name)
    return c.json({ ok: true }, 200)
  })
}
