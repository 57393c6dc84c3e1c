import { describe, expect, it } from 'vitest'
import { memoryStore, openVfs } from '../../src/index.js'
import { describeStoreConformance } from '../conformance/store-suite.js'
import { describeVfsDurability } from '../conformance/vfs-suite.js'
import { describeContentHash } from '../conformance/hash-suite.js'
import { describeHistory } from '../conformance/history-suite.js'

describeStoreConformance('memory (node)', async () => ({ store: memoryStore() }))
describeVfsDurability('memory (node)', async () => ({ store: memoryStore() }))
describeHistory('memory (node)', async () => ({ store: memoryStore() }))
describeContentHash('node')
describeVfsDurability('memory without history (node)', async () => ({ store: memoryStore({ history: false }) }))

describe('memoryStore({ history: false })', () => {
  it('keeps no history: writes and reads work, history is empty, the past is refused, nothing replaced is kept', async () => {
    const store = memoryStore({ history: false })
    expect(store.history).toBeUndefined()
    const vfs = await openVfs({ store, namespace: 'n', scope: 's' })
    const seen: number[] = []
    vfs.onChange(c => c.type === 'commit' && seen.push(c.changes.length))
    await vfs.writeFile('/a.txt', 'x'.repeat(100_000))
    const first = vfs.version
    await vfs.writeFile('/a.txt', 'two')
    await vfs.rename('/a.txt', '/b.txt')
    expect(seen).toEqual([1, 1, 2]) // notices still say what each commit changed
    expect(await vfs.history()).toEqual([])
    expect(vfs.usage().historyBytes).toBe(0)
    await expect(vfs.readAt('/a.txt', first)).rejects.toMatchObject({ code: 'EINVAL', message: expect.stringMatching(/keeps no history/) })
    await expect(vfs.revert({ after: first })).rejects.toMatchObject({ code: 'EINVAL' })
    const again = await openVfs({ store, namespace: 'n', scope: 's' })
    expect(await again.readFile('/b.txt', 'utf8')).toBe('two')
    // The default keeps history.
    expect(memoryStore().history).toBeDefined()
  })
})
