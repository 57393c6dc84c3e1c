import type { FileEntry, Page, PendingAnswer, PendingSummary, SessionEvent, SessionMessage, SessionRecord } from './types.js'

/** How the client reaches a session host: the same shape remote (real `fetch`) and in this tab (the Worker bridge). */
export interface ClientOptions {
  /** The API's base URL, absolute or relative to the page; no trailing slash needed. */
  baseUrl: string
  /** A bearer JWT. */
  token: string
  fetch?: typeof fetch
}

/** An error the API returned (`{ error: { code, message } }`) or a network failure (`status` 0). */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    /** The whole JSON body of the answer (a 409's `conflicts`, say), when it had one. */
    readonly body?: unknown,
  ) {
    super(message)
    this.name = 'ApiError'
  }

  /** A sentence for a person: what went wrong and, where it helps, what to do. */
  describe(): string {
    const hint: Record<number, string> = {
      0: 'Check the base URL and that the host is running.',
      401: 'The token is missing, invalid or expired: paste a fresh one in the connection panel.',
      404: 'It does not exist (or belongs to someone else).',
      413: 'Nothing was written: upload fewer or smaller files.',
      502: 'The host, or a proxy in front of it, dropped the request (a request over its size limit can end so).',
    }
    return `${asSentence(this.message)}${hint[this.status] ? ` ${hint[this.status]}` : ''} (${this.status || 'network'} ${this.code})`
  }
}

/**
 * `text` ending as a sentence does (a full stop unless it ends in `.`, `!`, `?` or `…`): server
 * messages have no final stop, and the UI writes its own hints after them.
 */
export function asSentence(text: string): string {
  const trimmed = text.trim()
  return trimmed === '' || /[.!?…]["')\]]*$/.test(trimmed) ? trimmed : `${trimmed}.`
}

/**
 * A typed client of the session HTTP API (src/session/http/routes.ts). Every method resolves to the
 * response body or rejects with an {@link ApiError}.
 */
export class SessionClient {
  readonly baseUrl: string
  private readonly token: string
  private readonly doFetch: typeof fetch

  constructor(options: ClientOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, '')
    this.token = options.token
    // Bound: a detached window.fetch throws "Illegal invocation".
    this.doFetch = options.fetch ?? ((input, init) => globalThis.fetch(input, init))
  }

  /** A URL of the API for `path` (which starts with `/`), with `query` parameters. */
  url(path: string, query: Record<string, string | number | undefined> = {}): string {
    const q = new URLSearchParams()
    for (const [k, v] of Object.entries(query)) if (v !== undefined) q.set(k, String(v))
    const s = q.toString()
    return `${this.baseUrl}${path}${s ? `?${s}` : ''}`
  }

  /** A raw authenticated request; rejects on a non-2xx status with the API's error. */
  async request(path: string, init: RequestInit & { query?: Record<string, string | number | undefined> } = {}): Promise<Response> {
    const { query, ...rest } = init
    const headers = new Headers(rest.headers)
    headers.set('authorization', `Bearer ${this.token}`)
    let res: Response
    try {
      res = await this.doFetch(this.url(path, query), { ...rest, headers })
    } catch (error) {
      if ((error as Error)?.name === 'AbortError') throw error
      throw new ApiError(0, 'network', `Could not reach ${this.baseUrl || 'the host'}: ${(error as Error)?.message ?? String(error)}.`)
    }
    if (res.ok || res.status === 304) return res
    throw await errorOf(res)
  }

  private async json<T>(path: string, init: RequestInit & { query?: Record<string, string | number | undefined> } = {}): Promise<T> {
    return (await (await this.request(path, init)).json()) as T
  }

  private post<T>(path: string, body?: unknown): Promise<T> {
    return this.json<T>(
      path,
      body === undefined
        ? { method: 'POST' }
        : { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) },
    )
  }

  listSessions(cursor?: string): Promise<Page<SessionRecord>> {
    return this.json('/sessions', { query: { limit: 100, cursor } })
  }
  createSession(profile: string, title?: string): Promise<SessionRecord> {
    return this.post('/sessions', title ? { profile, title } : { profile })
  }
  getSession(id: string): Promise<SessionRecord> {
    return this.json(`/sessions/${id}`)
  }
  closeSession(id: string): Promise<SessionRecord> {
    return this.post(`/sessions/${id}/close`)
  }
  reopenSession(id: string): Promise<SessionRecord> {
    return this.post(`/sessions/${id}/reopen`)
  }
  async deleteSession(id: string): Promise<void> {
    await this.json(`/sessions/${id}`, { method: 'DELETE' })
  }

  listFiles(id: string, prefix?: string): Promise<FileEntry[]> {
    return this.json(`/sessions/${id}/files`, { query: { prefix } })
  }
  /** Reads a file's bytes (the caller decides how to show them). */
  async readFile(id: string, path: string): Promise<Blob> {
    return (await this.request(`/sessions/${id}/file`, { query: { path } })).blob()
  }
  async deleteFile(id: string, path: string): Promise<void> {
    await this.json(`/sessions/${id}/file`, { method: 'DELETE', query: { path } })
  }
  /**
   * Uploads files in one commit: each file's `name` is its path relative to `dir` (default
   * `/context`). Either all are written or none (a refusal names the reason).
   */
  uploadFiles(id: string, files: Array<{ name: string; data: Blob }>, dir = '/context'): Promise<{ paths: string[] }> {
    const form = new FormData()
    for (const f of files) form.append('file', f.data, f.name)
    return this.json(`/sessions/${id}/files`, { method: 'POST', query: { dir }, body: form })
  }

  /** Starts an execution (or queues a follow-up); `steer` hands the text to the running execution. */
  sendMessage(id: string, text: string, steer = false): Promise<SessionMessage> {
    return this.post(`/sessions/${id}/messages`, steer ? { text, steer } : { text })
  }
  listMessages(id: string): Promise<SessionMessage[]> {
    return this.json(`/sessions/${id}/messages`)
  }
  async abort(id: string): Promise<void> {
    await this.post(`/sessions/${id}/abort`)
  }
  async resume(id: string): Promise<void> {
    await this.post(`/sessions/${id}/resume`)
  }
  listPending(id: string): Promise<PendingSummary[]> {
    return this.json(`/sessions/${id}/pending`)
  }
  async answerPending(id: string, pendingId: string, answer: PendingAnswer): Promise<void> {
    await this.post(`/sessions/${id}/pending/${pendingId}`, answer)
  }
  /** Stored events with `seq > after`, oldest first (at most `limit`, up to 1000). */
  async listEvents(id: string, after: number, limit = 1000): Promise<SessionEvent[]> {
    return (await this.json<{ events: SessionEvent[] }>(`/sessions/${id}/events`, { query: { after, limit } })).events
  }
  /** Opens the SSE stream from `after` (sent as Last-Event-ID, as EventSource does on reconnect). */
  openStream(id: string, after: number, signal: AbortSignal): Promise<Response> {
    // ?live=1: the assistant's text as it is generated, too (delta messages, never stored).
    return this.request(`/sessions/${id}/stream?live=1`, {
      headers: { accept: 'text/event-stream', 'last-event-id': String(after) },
      signal,
    })
  }
}

async function errorOf(res: Response): Promise<ApiError> {
  let code = `http-${res.status}`
  let message = res.statusText || `The host answered ${res.status}.`
  let body: { error?: { code?: unknown; message?: unknown } } | undefined
  try {
    body = (await res.json()) as { error?: { code?: unknown; message?: unknown } }
    if (typeof body?.error?.code === 'string') code = body.error.code
    if (typeof body?.error?.message === 'string') message = body.error.message
  } catch {
    // Not JSON (a proxy's page): keep the status line.
  }
  return new ApiError(res.status, code, message, body)
}
