/** Node's Buffer, as far as this file uses it (the package has no Node types; Mastra needs Node anyway). */
interface BufferLike extends Uint8Array {
  toString(encoding?: string): string
}
interface BufferStatic {
  from(data: ArrayBufferLike, byteOffset?: number, length?: number): BufferLike
  from(data: string, encoding?: string): BufferLike
}

function nodeBuffer(): BufferStatic {
  const B = (globalThis as { Buffer?: BufferStatic }).Buffer
  if (!B) throw new Error('VfsFilesystem needs the Buffer global (Node, or Workers with nodejs_compat), as @mastra/core does')
  return B
}

export function toBuffer(bytes: Uint8Array): BufferLike {
  return nodeBuffer().from(bytes.buffer, bytes.byteOffset, bytes.byteLength)
}
