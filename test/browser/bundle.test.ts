import { describe, expect, it } from 'vitest'
import { forbiddenUses } from '../shared/bundle-checks.js'

describe('dist/index.js in Chromium', () => {
  it('loads unchanged and runs on the memory store', async () => {
    const source = await (await fetch(new URL('../../dist/index.js', import.meta.url))).text()
    expect(forbiddenUses(source)).toEqual([])
    const lib = await import('../../dist/index.js' as string)
    const vfs = await lib.openVfs({ store: lib.memoryStore(), namespace: 'bundle', scope: 'browser' })
    await vfs.writeFile('/a/b.txt', new Uint8Array([0, 255, 1]))
    expect(Array.from(await vfs.readFile('/a/b.txt'))).toEqual([0, 255, 1])
  })
})
