import type { VfsStore } from 'agent-vfs'
import { loadRecords, putJson, updateRecords, type RecordMap } from './records.js'
import { scopeNames } from '../storage.js'
import type { MessageMode, SessionMessage } from '../types.js'

const pathOf = (n: number) => `/${String(n).padStart(8, '0')}.json`

function all(records: RecordMap): Array<{ message: SessionMessage; version: number }> {
  return [...records.values()]
    .map(r => ({ message: r.value as SessionMessage, version: r.version }))
    .sort((a, b) => a.message.n - b.message.n)
}

/** A session's messages: numbered, durable, each with its delivery state. */
export class MessageBox {
  constructor(
    private readonly store: VfsStore,
    private readonly namespace: string,
    private readonly sessionId: string,
  ) {}

  private get scope() {
    return scopeNames.messages(this.sessionId)
  }

  /** Every message, oldest first. */
  async list(): Promise<SessionMessage[]> {
    return all(await loadRecords(this.store, this.namespace, this.scope)).map(m => m.message)
  }

  /** Stores a new queued message with the next number; the first one is the session's `task`, whatever it asked for. */
  add(text: string, mode: Exclude<MessageMode, 'task'>): Promise<SessionMessage> {
    return updateRecords(this.store, this.namespace, this.scope, records => {
      const n = all(records).reduce((max, m) => Math.max(max, m.message.n), 0) + 1
      const message: SessionMessage = { n, text, mode: n === 1 ? 'task' : mode, at: Date.now(), state: 'queued' }
      return { ops: [putJson(pathOf(n), message, 0)], value: message }
    })
  }

  /**
   * Marks queued messages that `pick` selects as delivered to `executionId`, atomically (a message
   * is delivered once, even with two hosts). Resolves to the messages it marked.
   */
  deliver(executionId: string, pick: (queued: SessionMessage[]) => SessionMessage[]): Promise<SessionMessage[]> {
    return updateRecords(this.store, this.namespace, this.scope, records => {
      const entries = all(records)
      const chosen = new Set(pick(entries.filter(e => e.message.state === 'queued').map(e => e.message)).map(m => m.n))
      const marked = entries.filter(e => chosen.has(e.message.n))
      const delivered = marked.map(e => ({ ...e.message, state: 'delivered' as const, executionId }))
      return { ops: marked.map((e, i) => putJson(pathOf(e.message.n), delivered[i], e.version)), value: delivered }
    })
  }
}
