/**
 * Console output of one run, capped by characters. Output past the cap is dropped and the last
 * entry says how much, so a model knows it is not seeing everything.
 */
export class LogBuffer {
  readonly lines: string[] = []
  private used = 0
  private dropped = 0

  constructor(private readonly maxChars: number) {}

  push(_level: string, message: string): void {
    if (this.dropped > 0) {
      this.dropped += message.length
      return
    }
    const room = this.maxChars - this.used
    if (message.length <= room) {
      this.lines.push(message)
      this.used += message.length
      return
    }
    if (room > 0) this.lines.push(message.slice(0, room))
    this.used = this.maxChars
    this.dropped = message.length - Math.max(room, 0)
  }

  /** The lines, with a closing note when some were dropped. */
  result(): string[] {
    if (this.dropped === 0) return [...this.lines]
    return [...this.lines, `[logs truncated: ${this.dropped} more characters were dropped (limit ${this.maxChars})]`]
  }
}
