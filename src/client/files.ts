import type { SessionApiSchemas } from './api-schemas.gen.js'
import { SessionApiError } from './errors.js'
import { authHeaders, buildUrl, checkAnswer, readBounded, readJson, requestSignal, type Transport } from './http.js'

/** One file of an upload: its path relative to the upload's `dir`, and its content. */
export interface UploadFile {
  path: string
  data: Blob | Uint8Array | ArrayBuffer | string
}

/** How much of an upload's body has been handed to the network so far. */
export interface UploadProgress {
  loaded: number
  total: number
}

/** Options of {@link SessionClient.upload}. */
export interface UploadOptions {
  /** The folder the files go into. Default `/context`. */
  dir?: string
  /**
   * Called as the body goes out. Where the runtime can stream a request body (Node, workerd) or has
   * `XMLHttpRequest` (browsers, when no custom `fetch` was given) it is called per chunk; elsewhere once, at the end.
   */
  onProgress?: (progress: UploadProgress) => void
  signal?: AbortSignal
  /** Default: the client's `timeoutMs`. */
  timeoutMs?: number
}

/** A downloaded file: its bytes, its type and its ETag (the version it was read at). */
export interface Download {
  bytes: Uint8Array
  mimeType: string
  etag: string | undefined
  /** The bytes as UTF-8 text. */
  text(): string
}

const CHUNK = 64 * 1024

/** `POST /sessions/{id}/files`: every file in one commit. */
export async function uploadFiles(
  transport: Transport,
  sessionId: string,
  files: UploadFile[],
  options: UploadOptions = {},
): Promise<SessionApiSchemas['Written']> {
  const form = new FormData()
  for (const f of files) form.append('file', f.data instanceof Blob ? f.data : new Blob([f.data as BlobPart]), f.path)
  const url = buildUrl(transport.baseUrl, '/sessions/{id}/files', { id: sessionId }, { dir: options.dir })
  const headers = await authHeaders(transport)
  const limit = requestSignal(options.signal, options.timeoutMs ?? transport.timeoutMs)
  try {
    // The body's bytes and boundary, as fetch itself would send them.
    const encoded = new Response(form)
    headers.set('content-type', encoded.headers.get('content-type')!)
    const bytes = new Uint8Array(await encoded.arrayBuffer())
    const report = options.onProgress
    if (report && transport.xhr) return (await transport.xhr(url, headers, bytes, report, limit.signal)) as SessionApiSchemas['Written']
    const body = report ? countedStream(bytes, report) : bytes
    const init: RequestInit & { duplex?: 'half' } = {
      method: 'POST',
      headers,
      body,
      signal: limit.signal,
      ...(report ? { duplex: 'half' } : {}),
    }
    const response = await checkAnswer(await transport.fetch(url, init))
    return (await readJson(response, transport.maxResponseBytes)) as SessionApiSchemas['Written']
  } catch (error) {
    throw limit.failure(error)
  } finally {
    limit.done()
  }
}

/** The body as a stream that reports each chunk as the network takes it. */
function countedStream(bytes: Uint8Array, report: (p: UploadProgress) => void): ReadableStream<Uint8Array> {
  let at = 0
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (at >= bytes.byteLength) {
        controller.close()
        return
      }
      const chunk = bytes.subarray(at, Math.min(at + CHUNK, bytes.byteLength))
      at += chunk.byteLength
      controller.enqueue(chunk)
      report({ loaded: at, total: bytes.byteLength })
    },
  })
}

/** `GET /sessions/{id}/file`, read whole: at most `maxBytes` (default: the client's `maxResponseBytes`). */
export async function downloadFile(
  transport: Transport,
  sessionId: string,
  path: string,
  options: { signal?: AbortSignal; maxBytes?: number; timeoutMs?: number } = {},
): Promise<Download> {
  const url = buildUrl(transport.baseUrl, '/sessions/{id}/file', { id: sessionId }, { path })
  const limit = requestSignal(options.signal, options.timeoutMs ?? transport.timeoutMs)
  try {
    const response = await checkAnswer(await transport.fetch(url, { headers: await authHeaders(transport), signal: limit.signal }))
    const bytes = await readBounded(response.body, options.maxBytes ?? transport.maxResponseBytes)
    return {
      bytes,
      mimeType: response.headers.get('content-type') ?? 'application/octet-stream',
      etag: response.headers.get('etag') ?? undefined,
      text: () => new TextDecoder().decode(bytes),
    }
  } catch (error) {
    throw limit.failure(error)
  } finally {
    limit.done()
  }
}

/** An upload through `XMLHttpRequest`, whose `upload.onprogress` browsers report per chunk. */
export function xhrUpload(
  maxResponseBytes: number,
  url: string,
  headers: Headers,
  body: Uint8Array,
  report: (p: UploadProgress) => void,
  signal: AbortSignal,
) {
  return new Promise<unknown>((resolve, reject) => {
    const xhr = new XMLHttpRequest()
    xhr.onprogress = e => {
      if (e.loaded <= maxResponseBytes) return
      xhr.abort()
      reject(new SessionApiError(0, 'response-too-large', `the answer is larger than ${maxResponseBytes} bytes (maxResponseBytes)`))
    }
    xhr.open('POST', url)
    headers.forEach((value, name) => xhr.setRequestHeader(name, value))
    xhr.upload.onprogress = e => report({ loaded: e.loaded, total: e.total || body.byteLength })
    xhr.onload = () => {
      if (xhr.status >= 200 && xhr.status < 300) {
        try {
          resolve(JSON.parse(xhr.responseText))
        } catch (cause) {
          reject(new SessionApiError(xhr.status, 'bad-response', 'the server answered something that is not JSON', { cause }))
        }
      } else void checkAnswer(new Response(xhr.responseText, { status: xhr.status })).catch(reject)
    }
    xhr.onerror = () => reject(new SessionApiError(0, 'network', 'the server could not be reached'))
    signal.addEventListener('abort', () => (xhr.abort(), reject(signal.reason)), { once: true })
    xhr.send(body as unknown as XMLHttpRequestBodyInit)
  })
}
