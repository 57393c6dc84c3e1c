// Host strings copied into QuickJS's memory as NUL-terminated UTF-8 (engine/direct.ts).

/** What of the emscripten module the copy uses. */
export interface HeapModule {
  _malloc(bytes: number): number
  _free(ptr: number): void
  HEAPU8: Uint8Array
}

const encoder = new TextEncoder()

/**
 * `s` as NUL-terminated UTF-8 in the module's heap (the caller frees `ptr`), or undefined when it
 * cannot be copied this way: quickjs-emscripten's own copy (`lengthBytesUTF8` + `stringToUTF8`) is two
 * JavaScript loops over every character, 55 % of a guest's 1 MiB `vfs.read`; the engine's encoder
 * writes straight into the heap. One byte per character is tried first (ASCII, the common case),
 * else the exact UTF-8 is made and copied. A string with a lone surrogate is left to the caller:
 * the encoder would write U+FFFD where emscripten's copy keeps the surrogate as QuickJS reads it.
 */
export function heapUtf8(m: HeapModule, s: string): { ptr: number; bytes: number } | undefined {
  if (!isWellFormed(s)) return undefined
  const first = m._malloc(s.length + 1)
  if (!first) return undefined
  const { read, written } = encoder.encodeInto(s, m.HEAPU8.subarray(first, first + s.length))
  if (read === s.length) {
    m.HEAPU8[first + written] = 0
    return { ptr: first, bytes: written }
  }
  m._free(first)
  const bytes = encoder.encode(s)
  const ptr = m._malloc(bytes.length + 1)
  if (!ptr) return undefined
  m.HEAPU8.set(bytes, ptr)
  m.HEAPU8[ptr + bytes.length] = 0
  return { ptr, bytes: bytes.length }
}

/** `String.prototype.isWellFormed` (ES2024; one-byte strings answer at once), or a scan where it is missing. */
function isWellFormed(s: string): boolean {
  const native = (s as { isWellFormed?: () => boolean }).isWellFormed
  if (typeof native === 'function') return native.call(s)
  return !/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?:^|[^\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(s)
}
