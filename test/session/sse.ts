// Runtime-neutral (Node and workerd): a reader of Server-Sent Events responses.

export interface SseMessage {
  id?: string
  event?: string
  data?: string
  comment?: string
}

/** Reads an SSE response until `stop` returns true for a message (or the stream ends); then cancels it. */
export async function readSse(res: Response, stop: (m: SseMessage) => boolean): Promise<SseMessage[]> {
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader()
  const out: SseMessage[] = []
  let buffer = ''
  try {
    for (;;) {
      const { value, done } = await reader.read()
      if (done) return out
      buffer += value
      let end: number
      while ((end = buffer.indexOf('\n\n')) >= 0) {
        const block = buffer.slice(0, end)
        buffer = buffer.slice(end + 2)
        const m: SseMessage = {}
        for (const line of block.split('\n')) {
          if (line.startsWith(':')) m.comment = line.slice(1).trim()
          else {
            const i = line.indexOf(':')
            const key = line.slice(0, i) as 'id' | 'event' | 'data'
            const v = line.slice(i + 1).replace(/^ /, '')
            m[key] = key === 'data' && m.data !== undefined ? `${m.data}\n${v}` : v
          }
        }
        out.push(m)
        if (stop(m)) return out
      }
    }
  } finally {
    await reader.cancel().catch(() => undefined)
  }
}
