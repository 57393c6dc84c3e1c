import type { Node } from './tree.js'

const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'))

/** SHA-256 of bytes as lowercase hex (Web Crypto: the same in browsers, workerd and Node). */
export async function sha256Hex(data: Uint8Array): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', data as Uint8Array<ArrayBuffer>))
  let out = ''
  for (const b of digest) out += HEX[b]
  return out
}

/** The content hash of a file node, computed once (nodes are immutable; see tree.ts). */
export async function nodeHash(node: Node): Promise<string> {
  if (node.hash === undefined) node.hash = await sha256Hex(node.data)
  return node.hash
}
