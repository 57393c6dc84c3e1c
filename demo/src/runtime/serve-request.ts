import type { ReplyMessage, RequestMessage } from './protocol.js'

/**
 * Answers one request from the page on its port: rebuilds the Request, lets `fetch` (the session
 * app) answer it, and posts status, headers and the body stream back, transferring the stream.
 * The page's abort aborts the Request's signal; the page cancelling the body cancels the stream
 * here (that is how an SSE stream learns its reader left).
 */
export async function serveRequest(
  fetch: (request: Request) => Response | Promise<Response>,
  message: RequestMessage,
  port: MessagePort,
): Promise<void> {
  const aborted = new AbortController()
  port.onmessage = (e: MessageEvent) => {
    if ((e.data as { type?: string })?.type === 'abort') aborted.abort(new DOMException('The page aborted the request', 'AbortError'))
  }
  let reply: ReplyMessage
  let transfer: Transferable[] = []
  try {
    const request = new Request(message.url, {
      method: message.method,
      headers: message.headers,
      body: message.body,
      signal: aborted.signal,
    })
    const response = await fetch(request)
    reply = {
      type: 'response',
      status: response.status,
      statusText: response.statusText,
      headers: [...response.headers],
      body: response.body,
    }
    if (response.body) transfer = [response.body]
  } catch (error) {
    reply = { type: 'error', message: error instanceof Error ? error.message : String(error) }
  }
  port.postMessage(reply, transfer)
  port.close()
}
