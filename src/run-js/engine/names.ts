// The names the direct calls (direct.ts) copy into a run's memory.

/** Names as NUL-terminated UTF-8, one table, made once per list of names. */
export class NameTable {
  readonly bytes: Uint8Array
  private readonly offsets = new Map<string, number>()
  private readonly indexes = new Map<string, number>()

  constructor(names: Iterable<string>) {
    const encoder = new TextEncoder()
    const parts: Uint8Array[] = []
    let length = 0
    for (const name of new Set(names)) {
      if (name.includes('\u0000')) throw new Error(`a name with NUL: ${JSON.stringify(name)}`)
      const bytes = encoder.encode(name)
      this.offsets.set(name, length)
      this.indexes.set(name, this.indexes.size)
      parts.push(bytes)
      length += bytes.length + 1
    }
    this.bytes = new Uint8Array(length)
    let at = 0
    for (const p of parts) {
      this.bytes.set(p, at)
      at += p.length + 1
    }
  }

  offset(name: string): number | undefined {
    return this.offsets.get(name)
  }

  /** The name's position in the table (0, 1, …), or undefined. */
  index(name: string): number | undefined {
    return this.indexes.get(name)
  }

  /** How many names. */
  get size(): number {
    return this.indexes.size
  }
}
