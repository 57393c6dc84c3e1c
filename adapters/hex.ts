/** Bytes as hex text and back: how content crosses the D1 binding (see d1.ts). */
const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'))

export function toHex(bytes: Uint8Array): string {
  // Joining pieces of 64 KiB keeps the intermediate arrays small.
  let out = ''
  for (let at = 0; at < bytes.length; at += 65536) {
    const end = Math.min(at + 65536, bytes.length)
    const piece = new Array<string>(end - at)
    for (let i = at; i < end; i++) piece[i - at] = HEX[bytes[i]]
    out += piece.join('')
  }
  return out
}

export function fromHex(hex: string): Uint8Array {
  const out = new Uint8Array(hex.length >> 1)
  for (let i = 0; i < out.length; i++) out[i] = (nibble(hex.charCodeAt(2 * i)) << 4) | nibble(hex.charCodeAt(2 * i + 1))
  return out
}

/** SQLite's hex() writes upper case; accept both. */
function nibble(c: number): number {
  return c <= 57 ? c - 48 : (c | 32) - 87
}
