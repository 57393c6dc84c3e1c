import { describe, expect, it } from 'vitest'
import { JS_HASH_MAX_BYTES, sha256Hex } from '../../src/vfs/hash.js'

const hex = (bytes: ArrayBuffer) => [...new Uint8Array(bytes)].map(b => b.toString(16).padStart(2, '0')).join('')

/**
 * Content hashes are SHA-256 in every runtime, whichever path made them: JavaScript for small files,
 * Web Crypto above {@link JS_HASH_MAX_BYTES}. Checked against known digests and against Web Crypto on
 * sizes around the block boundaries and the switch.
 */
export function describeContentHash(runtime: string): void {
  describe(`content hashes (${runtime})`, () => {
    it('match SHA-256 on known inputs and Web Crypto at every size around the switch', async () => {
      const text = new TextEncoder()
      expect(await sha256Hex(new Uint8Array(0))).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855')
      expect(await sha256Hex(text.encode('abc'))).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad')
      for (const n of [1, 55, 56, 63, 64, 65, 1000, JS_HASH_MAX_BYTES - 1, JS_HASH_MAX_BYTES, JS_HASH_MAX_BYTES + 1, 200_000]) {
        const data = new Uint8Array(n)
        for (let i = 0; i < n; i++) data[i] = (i * 2654435761) >>> 24
        expect(await sha256Hex(data), `${n} bytes`).toBe(hex(await crypto.subtle.digest('SHA-256', data)))
      }
    })
  })
}
