/**
 * The in-tab runtime, page side: starts the session host worker and gives the UI what the remote
 * mode gives it too, a base URL, a token and a `fetch`, so one API client serves both modes.
 *
 * ```ts
 * const runtime = await startInTabRuntime({ settings })
 * const api = createApiClient({ baseUrl: runtime.baseUrl, token: runtime.token, fetch: runtime.fetch })
 * ```
 */
import type { DemoSettings } from '../api/settings.js'
import { portFetch } from './port-fetch.js'
import { IN_TAB_BASE_URL, type InitMessage, type WorkerMessage } from './protocol.js'

export { IN_TAB_BASE_URL, IN_TAB_OWNER } from './protocol.js'

/** Options of {@link startInTabRuntime}. */
export interface InTabRuntimeOptions {
  settings: DemoSettings
  /** IndexedDB database of the workspace. Default `agent-vfs-demo`. */
  dbName?: string
  /**
   * How long a session's lease lasts: after a reload the new worker takes over a run of the old
   * one within this time. Default 3 s (renewed every second).
   */
  leaseMs?: number
  /** Delay before every model call, so a person can watch the scripted model work. Default 0. */
  modelDelayMs?: number
  /** How long the worker may take to start. Default 30 s. */
  startTimeoutMs?: number
}

/** A running in-tab session host. */
export interface InTabRuntime {
  /** Base URL of the session API (it never reaches the network). */
  baseUrl: string
  /** Bearer token of this browser's owner, `me`. */
  token: string
  /** The session API's fetch: requests go to the worker. */
  fetch: typeof fetch
  hostId: string
  /** New settings (the model) apply from the next execution or resume. */
  configure(settings: DemoSettings): void
  /** Ends the worker at once, as a reload does; open requests and streams fail. */
  terminate(): void
}

/** Starts the session host in a module Web Worker of this tab; resolves when it serves requests. */
export async function startInTabRuntime(options: InTabRuntimeOptions): Promise<InTabRuntime> {
  const worker = new Worker(new URL('./worker.ts', import.meta.url), { type: 'module', name: 'agent-vfs session host' })
  const closed = new AbortController()
  const terminate = () => {
    worker.terminate()
    closed.abort(new TypeError('the in-tab session host stopped'))
  }
  const init: InitMessage = {
    type: 'init',
    settings: options.settings,
    dbName: options.dbName ?? 'agent-vfs-demo',
    leaseMs: options.leaseMs ?? 3000,
    modelDelayMs: options.modelDelayMs ?? 0,
  }
  const ready = new Promise<{ token: string; hostId: string }>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`the in-tab session host did not start within ${options.startTimeoutMs ?? 30_000} ms`)),
      options.startTimeoutMs ?? 30_000,
    )
    worker.onmessage = (e: MessageEvent<WorkerMessage>) => {
      clearTimeout(timer)
      if (e.data.type === 'ready') resolve(e.data)
      else reject(new Error(`the in-tab session host failed to start: ${e.data.message}`))
    }
    worker.onerror = e => {
      clearTimeout(timer)
      reject(new Error(`the in-tab session host failed to load: ${e.message || 'see the console'}`))
    }
  })
  worker.postMessage(init)
  let started
  try {
    started = await ready
  } catch (error) {
    terminate()
    throw error
  }
  return {
    baseUrl: IN_TAB_BASE_URL,
    token: started.token,
    hostId: started.hostId,
    fetch: portFetch(worker, closed.signal),
    configure: settings => worker.postMessage({ type: 'configure', settings }),
    terminate,
  }
}
