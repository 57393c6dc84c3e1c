/**
 * The QuickJS wasm bytes, read from the variant's package (in this repository's tests and scripts).
 * The build replaces this module with the bytes themselves, base64 in the file (scripts/build.mjs).
 */
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'

export default function wasmBytes(): Uint8Array {
  return readFileSync(createRequire(import.meta.url).resolve('@jitl/quickjs-wasmfile-release-sync/wasm'))
}
