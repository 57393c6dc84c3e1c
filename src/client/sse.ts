import { SessionApiError } from './errors.js'

/** One Server-Sent Events message: `id` is the last id seen (the session's sequence), `event` its type. */
export interface SseMessage {
  id: string | undefined
  event: string
  data: string
}

/**
 * A Server-Sent Events parser that holds at most `maxEventBytes` characters of one event (its lines and
 * data together): a server that sends an endless line or a huge event gets a clear error
 * (`event-too-large`), not a client that grows until it dies. Comments (`: heartbeat`) are dropped as
 * they are read. Feed it decoded text with {@link push}; it returns the complete messages.
 */
export class SseParser {
  private line = ''
  private data: string[] = []
  private dataSize = 0
  private event = ''
  private lastId: string | undefined
  private pendingCr = false

  constructor(private readonly maxEventBytes: number) {}

  push(text: string): SseMessage[] {
    const out: SseMessage[] = []
    let i = 0
    // "\r\n" is one line end, also when a chunk ends between the two.
    if (this.pendingCr && text.charCodeAt(0) === 10) i = 1
    this.pendingCr = false
    let start = i
    for (; i < text.length; i++) {
      const c = text.charCodeAt(i)
      if (c !== 10 && c !== 13) continue
      this.append(text, start, i)
      this.endLine(out)
      if (c === 13) {
        if (i + 1 === text.length) this.pendingCr = true
        else if (text.charCodeAt(i + 1) === 10) i++
      }
      start = i + 1
    }
    this.append(text, start, text.length)
    return out
  }

  private append(text: string, from: number, to: number) {
    if (to <= from) return
    this.grow(to - from)
    this.line += text.slice(from, to)
  }

  /** Refuses a line or event that would pass the bound. */
  private grow(adding: number) {
    if (this.line.length + adding + this.dataSize > this.maxEventBytes)
      throw new SessionApiError(
        0,
        'event-too-large',
        `an event of the stream is larger than ${this.maxEventBytes} characters (maxEventBytes)`,
      )
  }

  private endLine(out: SseMessage[]) {
    const line = this.line
    this.line = ''
    if (line === '') {
      if (this.data.length) out.push({ id: this.lastId, event: this.event || 'message', data: this.data.join('\n') })
      this.data = []
      this.dataSize = 0
      this.event = ''
      return
    }
    if (line.charCodeAt(0) === 58) return // ":" a comment
    const colon = line.indexOf(':')
    const field = colon < 0 ? line : line.slice(0, colon)
    let value = colon < 0 ? '' : line.slice(colon + 1)
    if (value.charCodeAt(0) === 32) value = value.slice(1)
    if (field === 'data') {
      this.data.push(value)
      this.dataSize += value.length + 1
    } else if (field === 'event') this.event = value
    else if (field === 'id' && !value.includes('\0')) this.lastId = value
  }
}
