import { VfsError } from '../contract/errors.js'
import type { FileData } from './types.js'

const encoder = new TextEncoder()
// ignoreBOM keeps a leading U+FEFF in the text instead of silently dropping it.
const decoder = new TextDecoder('utf-8', { ignoreBOM: true })

/** Converts caller data to bytes the workspace owns (a copy, so later caller mutations do not leak in). */
export function toBytes(data: FileData, path: string): Uint8Array {
  if (typeof data === 'string') return encoder.encode(data)
  if (data instanceof Uint8Array) return data.slice()
  if (data instanceof ArrayBuffer) return new Uint8Array(data.slice(0))
  if (ArrayBuffer.isView(data)) return new Uint8Array(data.buffer.slice(data.byteOffset, data.byteOffset + data.byteLength))
  throw new VfsError('EINVAL', path, `file data must be a string, Uint8Array or ArrayBuffer, got ${describe(data)}`)
}

export function decodeUtf8(bytes: Uint8Array): string {
  return decoder.decode(bytes)
}

export function concatBytes(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length)
  out.set(a, 0)
  out.set(b, a.length)
  return out
}

function describe(value: unknown): string {
  if (value === null) return 'null'
  if (typeof value === 'object') return (value as object).constructor?.name ?? 'object'
  return typeof value
}
