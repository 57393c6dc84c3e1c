import { describe, expect, it } from 'vitest'
import { forbiddenUses } from '../shared/bundle-checks.js'
// The built artefact itself (npm test builds it first), as text and as a module.
import source from '../../dist/index.js?raw'

describe('dist/index.js in workerd', () => {
  it('loads unchanged and runs on the memory store', async () => {
    expect(forbiddenUses(source)).toEqual([])
    const lib = await import('../../dist/index.js' as string)
    const vfs = await lib.openVfs({ store: lib.memoryStore(), namespace: 'bundle', scope: 'workerd' })
    await vfs.writeFile('/a.md', 'héllo')
    expect(await vfs.readFile('/a.md', 'utf8')).toBe('héllo')
    expect(typeof lib.durableObjectStore).toBe('function')
    expect(typeof lib.d1Store).toBe('function')
  })
})
