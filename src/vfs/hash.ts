import { sha256 } from '@noble/hashes/sha2.js'
import type { Node } from './tree.js'

const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'))

/**
 * Up to this size a file is hashed in JavaScript (@noble/hashes, bundled into dist/index.js), above it
 * by Web Crypto. A `crypto.subtle.digest` call costs ~55 µs whatever the size, and its first use in a
 * Node process ~4 ms of loading (on the first archived run_js program: a cold start); JavaScript
 * hashes 4 KiB in ~25 µs but falls behind native code above ~16 KiB (bench: Node 24, same machine).
 */
export const JS_HASH_MAX_BYTES = 16 * 1024

/** SHA-256 of bytes as lowercase hex: the same digest in browsers, workerd and Node, whichever path made it. */
export async function sha256Hex(data: Uint8Array): Promise<string> {
  const digest =
    data.length <= JS_HASH_MAX_BYTES ? sha256(data) : new Uint8Array(await crypto.subtle.digest('SHA-256', data as Uint8Array<ArrayBuffer>))
  let out = ''
  for (const b of digest) out += HEX[b]
  return out
}

/** The content hash of a file node, computed once (nodes are immutable; see tree.ts). */
export async function nodeHash(node: Node): Promise<string> {
  if (node.hash === undefined) node.hash = await sha256Hex(node.data)
  return node.hash
}
