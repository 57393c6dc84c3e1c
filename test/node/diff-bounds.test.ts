import { describe, expect, it } from 'vitest'
import { DIFF_LIMITS, memoryStore, openVfs } from '../../src/index.js'
import { worstCaseTexts } from '../hostile/diff-worst-case.js'

const open = () => openVfs({ store: memoryStore(), namespace: 'diff', scope: `s${Math.random()}`, autoRefresh: false })

/** A file written as `before`, then as `after`: the version between them, and the workspace. */
async function twoVersions(before: string, after: string) {
  const vfs = await open()
  await vfs.writeFile('/work/big.txt', before)
  const from = vfs.version
  await vfs.writeFile('/work/big.txt', after)
  return { vfs, from }
}

describe('vfs.diff is bounded (issue 27: a small diff froze the host)', () => {
  // Before the bounds: `vfs.diff` of this ran tens of seconds (no answer within this deadline).
  it('the 8,000-line worst case answers within a generous deadline, sizes and hashes, and says why it has no line diff', async () => {
    const { before, after } = worstCaseTexts()
    const { vfs, from } = await twoVersions(before, after)
    const deadline = new Promise((_, reject) => setTimeout(() => reject(new Error('vfs.diff did not answer within 15 s')), 15_000))
    const diff = (await Promise.race([vfs.diff(from), deadline])) as Awaited<ReturnType<typeof vfs.diff>>
    const entry = diff.entries.find(e => e.path === '/work/big.txt')!
    expect(entry).toMatchObject({ status: 'changed', binary: false, sizeBefore: before.length, sizeAfter: after.length })
    expect(entry.patch).toBeUndefined()
    expect(['edits', 'time']).toContain(entry.omitted?.reason)
    expect(entry.omitted?.message).toMatch(/line by line/)
    expect(entry.hashBefore).toMatch(/^[0-9a-f]{64}$/)
    expect(entry.hashAfter).toMatch(/^[0-9a-f]{64}$/)
    expect(entry.hashAfter).not.toBe(entry.hashBefore)
  }, 30_000)

  it('within the bounds a file has its line diff; each bound is an option and says which one it was', async () => {
    const before = Array.from({ length: 60 }, (_, i) => `line ${i}`).join('\n') + '\n'
    const after = before.replace('line 7\n', 'line seven\n').replace('line 40\n', 'line forty\n')
    const { vfs, from } = await twoVersions(before, after)
    const full = (await vfs.diff(from)).entries.find(e => e.path === '/work/big.txt')!
    expect(full).toMatchObject({ added: 2, removed: 2, binary: false })
    expect(full.patch).toContain('+line seven')
    expect(full.omitted).toBeUndefined()
    expect(full.hashBefore).toBeUndefined()

    const edits = (await vfs.diff(from, undefined, { maxEditLength: 3 })).entries.find(e => e.path === '/work/big.txt')!
    expect(edits.omitted?.reason).toBe('edits')
    const size = (await vfs.diff(from, undefined, { maxBytes: 100 })).entries.find(e => e.path === '/work/big.txt')!
    expect(size.omitted?.reason).toBe('size')
    expect(size).toMatchObject({ binary: false, sizeBefore: before.length })
    const budget = (await vfs.diff(from, undefined, { budgetMs: 0 })).entries.find(e => e.path === '/work/big.txt')!
    expect(budget.omitted?.reason).toBe('budget')
    // Without patches the counts still come, within the same bounds.
    const counts = (await vfs.diff(from, undefined, { patches: false })).entries.find(e => e.path === '/work/big.txt')!
    expect(counts).toMatchObject({ added: 2, removed: 2 })
    expect(counts.patch).toBeUndefined()
    expect(DIFF_LIMITS).toMatchObject({ maxBytes: 256 * 1024, maxEditLength: 1000, fileTimeoutMs: 50, budgetMs: 2000 })
  })

  it('a binary file larger than the size bound is binary, with hashes', async () => {
    const big = new Uint8Array(DIFF_LIMITS.maxBytes + 10).fill(0xff)
    const { vfs, from } = await twoVersions('small\n', '')
    await vfs.writeFile('/work/big.txt', big)
    const entry = (await vfs.diff(from)).entries.find(e => e.path === '/work/big.txt')!
    expect(entry).toMatchObject({ binary: true, sizeAfter: big.length })
    expect(entry.omitted).toBeUndefined()
    expect(entry.hashAfter).toMatch(/^[0-9a-f]{64}$/)
  })

  it('ten worst cases at once all answer, each within its bound, and a timer set meanwhile fires before the last answers', async () => {
    const { before, after } = worstCaseTexts()
    const { vfs, from } = await twoVersions(before, after)
    const order: string[] = []
    const diffs = Array.from({ length: 10 }, () => vfs.diff(from).then(d => (order.push('diff'), d)))
    setTimeout(() => order.push('timer'), 0)
    const all = await Promise.all(diffs)
    for (const d of all) expect(d.entries.find(e => e.path === '/work/big.txt')!.omitted).toBeDefined()
    // The line diffs take turns with a macrotask between them: other work is not queued behind all ten.
    expect(order.indexOf('timer')).toBeLessThan(order.length - 1)
  }, 60_000)
})
