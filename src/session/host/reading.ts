import { listExecutionIds, readEvents, readExecution, type ExecutionRecord } from 'agent-vfs/agent'
import { SessionError } from '../errors.js'
import type { SessionHost, SessionHostOptions } from '../host-api.js'
import type { HostParts } from './host-parts.js'
import { idOf } from '../session-ref.js'
import { LogTails, type TailListener } from '../records/log-tail.js'
import { observeLog, type ObserveOptions } from '../records/observe.js'
import { withLiveText } from '../records/observe-live.js'
import { StreamCounter } from './stream-quota.js'
import { sessionTailSource } from './tail-source.js'
import type { SessionEvent } from '../types.js'

/**
 * The host's reading of a session: executions, stored events, live observers and their streams,
 * the workspace. Observers of a session share one reader of its log (see log-tail.ts).
 */
export function readingMethods(
  parts: HostParts,
  options: Pick<SessionHostOptions, 'streamsElsewhere'>,
): Pick<SessionHost, 'executions' | 'execution' | 'events' | 'eventLines' | 'observe' | 'liveText' | 'tail' | 'openStream' | 'workspace'> {
  const { ctx } = parts
  const tails = new LogTails(id => sessionTailSource(ctx, id), ctx.settings.pollMs)
  const streams = new StreamCounter(ctx.settings.quota.maxStreams, options.streamsElsewhere)
  return {
    async executions(session) {
      const { ws } = await parts.open(session)
      const out: ExecutionRecord[] = []
      for (const id of await listExecutionIds(ws)) {
        const r = await readExecution(ws, id)
        if (r) out.push(r)
      }
      return out
    },

    async execution(session, executionId) {
      const { ws } = await parts.open(session)
      const record = typeof executionId === 'string' && /^e\d{4,}$/.test(executionId) ? await readExecution(ws, executionId) : undefined
      if (!record) throw new SessionError('not-found', `There is no execution ${JSON.stringify(String(executionId).slice(0, 32))}`)
      return { record, events: await readEvents(ws, executionId) }
    },

    async events(session, { after = 0, limit = 1000 } = {}) {
      const lines = await ctx.eventLines(idOf(session), pageAfter(after), pageLimit(limit, 1000), parts.taken(session))
      return lines.map(l => JSON.parse(l.json) as SessionEvent)
    },

    async eventLines(session, { after = 0, limit = 1000 } = {}) {
      return ctx.eventLines(idOf(session), pageAfter(after), pageLimit(limit, 10_000), parts.taken(session))
    },

    observe: ((sessionId: string, observeOptions: ObserveOptions & { live?: boolean } = {}) => {
      const { live, ...rest } = observeOptions
      const stored = (async function* () {
        await parts.load(sessionId)
        const source = {
          read: (after: number, limit: number) => ctx.log(sessionId).readLines(after, limit),
          subscribe: (listener: TailListener, pollMs?: number) => tails.subscribe(sessionId, listener, pollMs),
        }
        yield* observeLog(source, { heartbeatMs: ctx.settings.heartbeatMs, ...rest })
      })()
      return live ? withLiveText(stored, listener => ctx.live.subscribe(sessionId, listener)) : stored
    }) as SessionHost['observe'],

    liveText: (sessionId, listener) => ctx.live.subscribe(sessionId, listener),

    tail: (sessionId, listener, pollMs) => tails.subscribe(sessionId, listener, pollMs),

    openStream: owner => streams.open(owner),

    async workspace(session, options) {
      return (await parts.open(session, options?.actor)).ws
    },
  }
}

/** A page's `after`: a whole number >= 0 (anything else: 0). */
const pageAfter = (after: unknown) => Math.max(0, Math.floor(Number(after) || 0))
/** A page's `limit`: a whole number in 1 … max (anything else: 1,000). */
const pageLimit = (limit: unknown, max: number) => Math.min(max, Math.max(1, Math.floor(Number(limit) || 1000)))
