import type { SessionEvent } from 'agent-vfs/session'
import type { JSONRPCNotification } from '@modelcontextprotocol/sdk/types.js'
import { resourceUri } from './resources.js'

/** `resources/updated` notifications one event may send at most; beyond, the client is told the list changed. */
export const MAX_UPDATES_PER_EVENT = 100

/**
 * What a session event tells a client: `notifications/resources/updated` for each changed file it
 * subscribed to (`'all'`: every changed file), then `notifications/resources/list_changed` when
 * files were added or deleted. Only `files-changed` events (every commit of the workspace: the
 * agent's, an upload, an MCP client's, a revert) change resources.
 */
export function notificationsOf(event: SessionEvent, subscriptions: ReadonlySet<string> | 'all'): JSONRPCNotification[] {
  if (event.type !== 'files-changed') return []
  const out: JSONRPCNotification[] = []
  let listChanged = false
  for (const change of event.changes) {
    if (change.op !== 'changed') listChanged = true
    const uri = resourceUri(change.path)
    if (subscriptions !== 'all' && !subscriptions.has(uri)) continue
    if (out.length === MAX_UPDATES_PER_EVENT) {
      listChanged = true
      continue
    }
    out.push({ jsonrpc: '2.0', method: 'notifications/resources/updated', params: { uri } })
  }
  if (listChanged) out.push({ jsonrpc: '2.0', method: 'notifications/resources/list_changed' })
  return out
}

/**
 * SSE event ids: `<seq>:<n>` is the n-th notification of the session's event `seq` (from 0); `<seq>`
 * says everything up to event `seq` was sent. A stream that drops between two notifications of one
 * event resumes after the last one the client saw: nothing is lost, nothing comes twice.
 */
export const notificationId = (seq: number, n: number) => `${seq}:${n}`

/** Where a stream resumes: after event `after`, then skipping the first `skip` notifications of event `after + 1`. */
export interface ResumePoint {
  after: number
  skip: number
}

/** The resume point of a `Last-Event-ID` (undefined when it is not one this server sends). */
export function resumePoint(lastEventId: string): ResumePoint | undefined {
  const m = /^(\d{1,15})(?::(\d{1,4}))?$/.exec(lastEventId.trim())
  if (!m) return undefined
  const seq = Number(m[1])
  return m[2] === undefined ? { after: seq, skip: 0 } : { after: Math.max(0, seq - 1), skip: Number(m[2]) + 1 }
}
