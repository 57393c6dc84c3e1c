import { createApi, type SessionApi } from './api.js'
import { SessionApiError } from './errors.js'
import type { ObservedEvent } from './events.js'
import { downloadFile, uploadFiles, xhrUpload, type Download, type UploadFile, type UploadOptions } from './files.js'
import type { Transport } from './http.js'
import { observeSession, type ObserveOptions } from './observe.js'
import type { SessionApiSchemas } from './api-schemas.gen.js'

/** Options of {@link createSessionClient}. */
export interface SessionClientOptions {
  /** Where the session API is served, e.g. `http://127.0.0.1:8787` or `https://app.example/api`. */
  baseUrl: string | URL
  /** The bearer token (a JWT whose `sub` is the owner). */
  token?: string
  /** Called before every request for the token to send: for tokens that expire. Wins over `token`. */
  getToken?: () => string | undefined | Promise<string | undefined>
  /** The `fetch` to use (a service binding's, a test's). Default: the global one. */
  fetch?: typeof fetch
  /** The longest a call may take, its answer included (0: no limit). Default 30 s. Streams are bounded by silence instead. */
  timeoutMs?: number
  /** The largest answer read whole (a JSON answer, a download), in bytes. Default 32 MiB. */
  maxResponseBytes?: number
}

/** A client of the session API: typed calls for every route, a self-healing event stream, uploads and downloads. */
export interface SessionClient {
  /** Every route of the API by name, typed from the server's OpenAPI document (see {@link SessionApi}). */
  readonly api: SessionApi
  /**
   * The session's events, replayed from `after` and then live, across reconnects: each event once and in
   * order (see {@link ObserveOptions}). `for await (const e of client.observe(id)) …`
   */
  observe(sessionId: string, options?: ObserveOptions): AsyncIterable<ObservedEvent>
  /** Uploads files in one commit (`POST /sessions/{id}/files`), with progress. */
  upload(sessionId: string, files: UploadFile[], options?: UploadOptions): Promise<SessionApiSchemas['Written']>
  /** Reads one file whole, bounded by `maxBytes`. For a stream or a range, call `api.getFile`, which hands back the `Response`. */
  download(sessionId: string, path: string, options?: { signal?: AbortSignal; maxBytes?: number; timeoutMs?: number }): Promise<Download>
}

/** A client of the session API served at `baseUrl` (`npm run serve`, the Worker, or your own host). Works in browsers, Node and Workers. */
export function createSessionClient(options: SessionClientOptions): SessionClient {
  const transport = resolveTransport(options)
  return {
    api: createApi(transport),
    observe: (sessionId, observeOptions) => observeSession(transport, sessionId, observeOptions),
    upload: (sessionId, files, uploadOptions) => uploadFiles(transport, sessionId, files, uploadOptions),
    download: (sessionId, path, downloadOptions) => downloadFile(transport, sessionId, path, downloadOptions),
  }
}

function resolveTransport(options: SessionClientOptions): Transport {
  const fetchImpl = options.fetch ?? globalThis.fetch?.bind(globalThis)
  if (!fetchImpl) throw new SessionApiError(0, 'invalid', 'no fetch in this runtime: pass options.fetch')
  const baseUrl = String(options.baseUrl)
  if (!/^https?:\/\//i.test(baseUrl))
    throw new SessionApiError(0, 'invalid', `baseUrl must be an http(s) URL, got ${JSON.stringify(baseUrl)}`)
  const maxResponseBytes = options.maxResponseBytes ?? 32 * 1024 * 1024
  const useXhr = !options.fetch && typeof XMLHttpRequest === 'function'
  return {
    baseUrl,
    fetch: fetchImpl,
    token: async () => (options.getToken ? await options.getToken() : options.token),
    timeoutMs: options.timeoutMs ?? 30_000,
    maxResponseBytes,
    ...(useXhr ? { xhr: xhrUpload.bind(undefined, maxResponseBytes) } : {}),
  }
}
