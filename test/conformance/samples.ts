import type { Vfs } from '../../src/index.js'

/** Test data shared by the suites: the byte sequences that break naive text handling. */
export function bytesOf(text: string): Uint8Array {
  return new TextEncoder().encode(text)
}

export function binarySamples(): Record<string, Uint8Array> {
  return {
    '/bin/all-bytes.bin': Uint8Array.from({ length: 256 }, (_, i) => i),
    '/bin/zeros.bin': new Uint8Array(1000),
    '/bin/empty.txt': new Uint8Array(0),
    '/bin/multibyte.md': bytesOf('héllo wörld — 日本語 🙂 \u{10FFFF}'),
    '/bin/invalid-utf8.bin': Uint8Array.of(0xff, 0xfe, 0xc3, 0x28, 0xa0, 0xa1, 0xe2, 0x28, 0xa1, 0xf0, 0x90, 0x28, 0xbc, 0xed, 0xa0, 0x80),
    '/bin/bom.txt': Uint8Array.of(0xef, 0xbb, 0xbf, 0x61, 0x0d, 0x0a, 0x62),
  }
}

/** Deterministic pseudo-random bytes (not compressible, so no backend can cheat by compressing). */
export function bigFile(size: number, seed = 12345): Uint8Array {
  const out = new Uint8Array(size)
  let x = seed >>> 0
  for (let i = 0; i < size; i++) {
    x ^= x << 13
    x ^= x >>> 17
    x ^= x << 5
    out[i] = x & 0xff
  }
  return out
}

/** A workspace's whole tree as path → text (`<dir>` for directories): what two states are compared by. */
export async function textTree(vfs: Vfs): Promise<Record<string, string>> {
  const out: Record<string, string> = {}
  for (const p of await vfs.readdir('/', { recursive: true })) {
    const st = await vfs.stat('/' + p)
    out['/' + p] = st.type === 'file' ? await vfs.readFile('/' + p, 'utf8') : '<dir>'
  }
  return out
}
