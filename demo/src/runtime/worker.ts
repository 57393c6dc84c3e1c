/**
 * The in-tab session host: a module Web Worker (so a run never freezes the page) that owns the
 * workspace store, runs the agent and serves the session HTTP API to the page over MessagePorts.
 * Started by {@link startInTabRuntime} (page-fetch.ts); one per tab.
 */
import { openInTabHost, type InTabHost } from './in-tab-host.js'
import type { PageMessage, WorkerMessage } from './protocol.js'
import { serveRequest } from './serve-request.js'

interface WorkerScope {
  onmessage: ((event: MessageEvent<PageMessage>) => void) | null
  postMessage(message: WorkerMessage): void
}
const scope = globalThis as unknown as WorkerScope

let opening: Promise<InTabHost> | undefined

scope.onmessage = event => {
  const message = event.data
  if (message.type === 'init') {
    if (opening) return
    opening = openInTabHost(message)
    opening.then(
      h => scope.postMessage({ type: 'ready', token: h.token, hostId: h.host.hostId }),
      (error: unknown) => scope.postMessage({ type: 'failed', message: error instanceof Error ? error.message : String(error) }),
    )
  } else if (message.type === 'configure') {
    void opening?.then(h => h.configure(message.settings))
  } else if (message.type === 'request') {
    const port = event.ports[0]
    if (!port) return
    if (!opening) {
      port.postMessage({ type: 'error', message: 'the in-tab host was not started (no init message)' })
      return
    }
    opening.then(
      h => serveRequest(h.fetch, message, port),
      (error: unknown) =>
        port.postMessage({
          type: 'error',
          message: `the in-tab host failed to start: ${error instanceof Error ? error.message : String(error)}`,
        }),
    )
  }
}
