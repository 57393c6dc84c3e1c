import type { ReplyMessage, RequestMessage } from './protocol.js'

/** Where requests go: the worker (or anything with its postMessage). */
export interface RequestTarget {
  postMessage(message: RequestMessage, transfer: Transferable[]): void
}

/**
 * A `fetch` whose server is the in-tab worker: each call posts the Request's method, URL,
 * headers and body bytes with a fresh MessagePort and resolves to the Response the worker sends
 * back on it, its body a stream transferred from the worker. Like `fetch`, it rejects with a
 * TypeError when no answer can come and with the signal's reason when the caller aborts; an
 * abort after the answer ends the body with that reason. `closed` fails every call and every
 * body still streaming (the worker is gone).
 */
export function portFetch(target: RequestTarget, closed: AbortSignal): typeof fetch {
  return async (input, init) => {
    const request = new Request(input, init)
    const signal = AbortSignal.any([request.signal, closed])
    signal.throwIfAborted()
    const body = request.method === 'GET' || request.method === 'HEAD' ? null : await request.arrayBuffer()
    signal.throwIfAborted()
    const channel = new MessageChannel()
    let onAbort: (() => void) | undefined
    const reply = new Promise<ReplyMessage>((resolve, reject) => {
      channel.port1.onmessage = (e: MessageEvent<ReplyMessage>) => resolve(e.data)
      onAbort = () => {
        channel.port1.postMessage({ type: 'abort' })
        reject(signal.reason)
      }
      signal.addEventListener('abort', onAbort, { once: true })
    })
    const message: RequestMessage = {
      type: 'request',
      method: request.method,
      url: request.url,
      headers: [...request.headers],
      body,
    }
    target.postMessage(message, body ? [channel.port2, body] : [channel.port2])
    let answer: ReplyMessage
    try {
      answer = await reply
    } finally {
      signal.removeEventListener('abort', onAbort!)
      channel.port1.close()
    }
    if (answer.type === 'error') throw new TypeError(`in-tab host: ${answer.message}`)
    // Piped with the signal: an abort (the caller's, or the worker going away) cancels the worker's
    // stream and errors the page's, so no reader waits for a stream whose writer is gone.
    const stream = answer.body ? answer.body.pipeThrough(new TransformStream<Uint8Array, Uint8Array>(), { signal }) : null
    return new Response(stream, { status: answer.status, statusText: answer.statusText, headers: answer.headers })
  }
}
