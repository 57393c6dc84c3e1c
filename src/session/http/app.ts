import { OpenAPIHono } from '@hono/zod-openapi'
import type { SessionHost } from '../host-api.js'
import type { ForkPoint } from '../fork/fork.js'
import type { SessionRecord } from '../types.js'
import { SessionError } from '../errors.js'
import { observeBatches } from '../records/observe.js'
import { bearerAuth, type AuthEnv, type SessionAuth } from './auth.js'
import { openSession } from './open-session.js'
import type { OpenedSession } from '../session-ref.js'
import { errorResponse, toErrorResponse } from './errors.js'
import { readMultipart, serveFile, uploadDir } from './files.js'
import { SseSink, liveSseBytes, sseBytes, sseComment } from './sse-batch.js'
import { bodyLimits, resolveBodyLimits } from './limits.js'
import { sessionRoutes as R } from './routes.js'
import { serveChanges } from './change-handlers.js'
import { addUsageRoutes } from './usage-routes.js'
import { traceRequests } from './request-spans.js'

/** Options of {@link createSessionApp}. */
export interface SessionAppOptions {
  auth: SessionAuth
  /** Largest request body of an upload (`PUT …/file`, `POST …/files`), in bytes. Default 20 MiB. */
  maxUploadBytes?: number
  /** Largest request body of every other route, in bytes. Default 1 MiB. */
  maxJsonBytes?: number
  /**
   * How many bytes of an oversized body are read and discarded before the 413 is sent, so that a
   * client that writes its whole body first still reads the answer. Default 256 MiB; a body that
   * announces more is answered at once and its connection closed.
   */
  drainBytes?: number
  /** Most files in one multipart upload. Default 1000. */
  maxUploadFiles?: number
  /** Heartbeat interval of the SSE stream. Default 15 s. */
  heartbeatMs?: number
  /** An SSE stream ends after this long without events (clients reconnect with Last-Event-ID). Default 5 min. */
  idleTimeoutMs?: number
  /**
   * Serves `GET /sessions/:id/ws` once the caller is authenticated and owns the session: returns
   * the 101 response of an accepted WebSocket that sends every event with seq > `after`, then live
   * ones. Hosts without WebSockets leave it out (the route answers 501). The Cloudflare Worker's
   * `SessionObject` gives one over the hibernation API.
   */
  webSocket?: (request: Request, session: { id: string; owner: string; after: number }) => Response | Promise<Response>
  /**
   * Serves `POST /sessions/:id/fork` (default true); false answers 501 (a host that cannot fork).
   * A function forks instead of `host.fork`: a host whose sessions live in separate stores (the
   * Worker: one Durable Object each) copies the original into the fork's (`host.remoteForks`).
   */
  forks?: boolean | ((sessionId: string, at: ForkPoint, options: { title?: string }) => Promise<SessionRecord>)
}

/** An owner at `quota.maxStreams`: 429, to retry once one of its streams ended. */
const tooManyStreams = (c: Parameters<typeof errorResponse>[0]) =>
  errorResponse(
    c,
    429,
    'too-many-streams',
    'this owner has as many event streams open as its quota allows: close one (or wait for one to end) and retry',
  )

/**
 * The session HTTP API as a hono app: REST + Server-Sent Events over a {@link SessionHost}.
 * Mount it anywhere (`app.route('/api', createSessionApp(host, { auth }))`). Every route but
 * `/openapi.json` needs a bearer JWT whose `sub` owns the session; another owner's session is 404.
 */
export function createSessionApp(host: SessionHost, options: SessionAppOptions): OpenAPIHono<AuthEnv> {
  const limits = resolveBodyLimits(options)
  const maxFiles = options.maxUploadFiles ?? 1000
  const app = new OpenAPIHono<AuthEnv>({
    defaultHook: (result, c) => {
      if (!result.success) {
        const issue = result.error.issues[0]
        return errorResponse(c, 400, 'invalid', issue ? `${issue.path.join('.') || 'body'}: ${issue.message}` : 'invalid request')
      }
    },
  })
  app.onError((error, c) => toErrorResponse(error, c))
  app.use('*', traceRequests())
  app.notFound(c => errorResponse(c, 404, 'not-found', 'no such route'))
  app.openAPIRegistry.registerComponent('securitySchemes', 'bearer', { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' })
  app.doc31('/openapi.json', { openapi: '3.1.0', info: { title: 'agent-vfs sessions', version: '1' } })
  const auth = bearerAuth(options.auth)
  app.use('/sessions', auth)
  app.use('/sessions/*', auth)
  // After auth (a stranger's body is not even buffered), before any handler: no body is read past its limit.
  // (hono's `/sessions/*` matches `/sessions` too: once is enough.)
  app.use('/sessions/*', bodyLimits(limits))
  addUsageRoutes(app, host, auth)

  // Each request opens its session once (on first use, after the route's validation), the caller's
  // own: another owner's session is "not found", like a missing one. The host's methods take it.
  app.use('/sessions/:id/*', openSession(host))
  const session = (c: { get(k: 'session'): (() => Promise<OpenedSession>) | undefined }) => c.get('session')!()

  app.openapi(R.createSession, async c => {
    const { profile, title } = c.req.valid('json')
    return c.json(await host.create({ owner: c.get('owner'), profile, ...(title !== undefined ? { title } : {}) }), 201)
  })
  app.openapi(R.listSessions, async c => {
    const q = c.req.valid('query')
    return c.json(await host.list(c.get('owner'), q), 200)
  })
  app.openapi(R.getSession, async c => c.json((await session(c)).record, 200))
  app.openapi(R.closeSession, async c => c.json(await host.close(await session(c)), 200))
  app.openapi(R.reopenSession, async c => c.json(await host.reopen(await session(c)), 200))
  app.openapi(R.deleteSession, async c => {
    await host.delete(await session(c))
    return c.json({ ok: true as const }, 200)
  })
  app.openapi(R.listFiles, async c => {
    const { prefix } = c.req.valid('query')
    const ws = await host.workspace(await session(c))
    const paths = await ws.glob('/**')
    const out = []
    for (const path of paths) {
      if (prefix && !path.startsWith(prefix)) continue
      const s = await ws.stat(path)
      out.push({ path, size: s.size, mtime: s.mtime, version: s.version, mimeType: s.mimeType })
    }
    return c.json(out, 200)
  })
  app.openapi(R.uploadFiles, async c => {
    const opened = await session(c)
    const files = await readMultipart(c, uploadDir(c.req.valid('query').dir), maxFiles)
    return c.json({ paths: await host.writeFiles(opened, files) }, 201)
  })
  app.openapi(R.putFile, async c => {
    const opened = await session(c)
    const data = new Uint8Array(await c.req.arrayBuffer())
    return c.json({ paths: await host.writeFiles(opened, [{ path: c.req.valid('query').path, data }]) }, 201)
  })
  app.openapi(R.getFile, async c => {
    const ws = await host.workspace(await session(c))
    return serveFile(c, ws, c.req.valid('query').path)
  })
  app.openapi(R.deleteFile, async c => {
    await host.deleteFile(await session(c), c.req.valid('query').path)
    return c.json({ ok: true as const }, 200)
  })
  app.openapi(R.sendMessage, async c => {
    const opened = await session(c)
    const { text, steer } = c.req.valid('json')
    return c.json(await host.send(opened, { text, ...(steer ? { steer } : {}) }), 202)
  })
  app.openapi(R.listMessages, async c => c.json(await host.messages(await session(c)), 200))
  app.openapi(R.abort, async c => {
    await host.abort(await session(c))
    return c.json({ ok: true as const }, 202)
  })
  app.openapi(R.resume, async c => {
    await host.resume(await session(c))
    return c.json({ ok: true as const }, 202)
  })
  app.openapi(R.listPending, async c => c.json(await host.pending(await session(c)), 200))
  app.openapi(R.answerPending, async c => {
    const { pendingId } = c.req.valid('param')
    const outcome = await host.answer(await session(c), pendingId, c.req.valid('json'))
    if (!outcome) return c.json({ ok: true as const }, 202)
    if (outcome.status !== 'conflicts') return c.json(outcome, 200)
    const paths = outcome.conflicts.map(x => x.path).slice(0, 3)
    const message = `nothing was written: the workspace changed since the proposal was made (${paths.join(', ')}${outcome.conflicts.length > 3 ? ', …' : ''})`
    return c.json({ error: { code: 'conflict' as const, message }, conflicts: outcome.conflicts }, 409)
  })
  app.openapi(R.listExecutions, async c => c.json(await host.executions(await session(c)), 200))
  app.openapi(R.getExecution, async c => {
    const { executionId } = c.req.valid('param')
    return c.json(await host.execution(await session(c), executionId), 200)
  })
  app.openapi(R.listEvents, async c => {
    // The stored lines pass through as they are: a page costs no parse and no serialisation per event.
    const lines = await host.eventLines(await session(c), c.req.valid('query'))
    const page = c.body(`{"events":[${lines.map(l => l.json).join(',')}]}`, 200, { 'content-type': 'application/json' })
    // The one answer hono cannot type: JSON written as the stored text it is (the route's schema describes it).
    return page as never
  })
  app.openapi(R.streamEvents, async c => {
    const opened = await session(c)
    const { id } = opened
    const header = c.req.header('last-event-id')
    let after = c.req.valid('query').after ?? 0
    if (header !== undefined) {
      if (!/^\d{1,15}$/.test(header.trim())) throw new SessionError('invalid', 'Last-Event-ID must be the sequence number of an event')
      after = Number(header.trim())
    }
    const release = host.openStream(c.get('owner'))
    if (!release) return tooManyStreams(c)
    const stop = new AbortController()
    let first = true
    const sink = new SseSink({ onCancel: () => (stop.abort(), release()) })
    const source = {
      // The first page reads with what the request opened (spent there); the next ones check the session as they read.
      read: (from: number, limit: number) => host.eventLines(first ? ((first = false), opened) : id, { after: from, limit }),
      subscribe: host.tail.bind(host, id),
    }
    void (async () => {
      try {
        const watch = {
          after,
          signal: stop.signal,
          heartbeatMs: options.heartbeatMs ?? 15_000,
          idleTimeoutMs: options.idleTimeoutMs ?? 300_000,
        }
        const live = c.req.valid('query').live === '1'
        // A live observer (streaming text) goes event by event: its deltas are its own, cut per observer.
        if (live) {
          for await (const e of host.observe(id, { ...watch, live: true })) {
            await sink.write(liveSseBytes(e))
            if (sink.cancelled) break
          }
          return
        }
        // A tail batch's bytes are the same for every stream of the session (sseBytes): no serialisation per stream.
        for await (const b of observeBatches(source, watch)) {
          await sink.write(Array.isArray(b) ? sseBytes(b) : sseComment(`heartbeat ${b.after}`))
          if (sink.cancelled) break
        }
      } catch {
        // The session went away under the stream (deleted): the stream ends, the client reconnects and is told.
      } finally {
        sink.close()
        release()
      }
    })()
    return c.body(sink.body, 200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' })
  })
  app.openapi(R.streamWebSocket, async c => {
    const { id } = await session(c)
    if (!options.webSocket)
      return errorResponse(c, 501, 'not-implemented', 'this host serves no WebSockets; use GET /sessions/{id}/stream (SSE)')
    if (c.req.header('upgrade')?.toLowerCase() !== 'websocket')
      return errorResponse(c, 426, 'upgrade-required', 'send a WebSocket upgrade request (Upgrade: websocket)')
    // Checked here, counted by the host that keeps the socket (see SessionHostOptions.streamsElsewhere).
    const release = host.openStream(c.get('owner'))
    if (!release) return tooManyStreams(c)
    release()
    return options.webSocket(c.req.raw, { id, owner: c.get('owner'), after: c.req.valid('query').after ?? 0 })
  })
  serveChanges(app, host, async c => (await session(c)).id, {
    forks: options.forks ?? true,
  })
  return app
}

export { SessionError }
