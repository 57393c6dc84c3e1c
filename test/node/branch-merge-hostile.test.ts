import { describe, expect, it } from 'vitest'
import { DIFF_LIMITS, isVfsError, memoryStore, openVfs, type CommitOptions, type LandResult, type OpenVfsOptions } from '../../src/index.js'
import { denseRepeatedRegion, longLines, manySmallHunks, repeatedLinesAtBound, type MergeCase } from '../hostile/merge-worst-case.js'

const open = (options: Partial<OpenVfsOptions> = {}) =>
  openVfs({ store: memoryStore(), namespace: 'merge', scope: `s${Math.random()}`, autoRefresh: false, ...options })

/** What a merge of `c` should give when each side's edit stays where it was made. */
const bothEdits = (c: MergeCase) => {
  const lines = (t: string) => t.split(/(?<=\n)/)
  const [o, a, b] = [lines(c.base), lines(c.ours), lines(c.theirs)]
  return o.map((l, i) => (a[i] !== l ? a[i] : b[i])).join('')
}

/** Commits a branch holding `theirs` of each case over a workspace holding `ours`, within a deadline that no unbounded merge meets. */
async function commitCases(cases: MergeCase[], options?: CommitOptions & { deadlineMs?: number }) {
  const vfs = await open()
  for (const [i, c] of cases.entries()) await vfs.writeFile(`/work/${i}.txt`, c.base)
  const branch = await vfs.branch()
  for (const [i, c] of cases.entries()) await branch.writeFile(`/work/${i}.txt`, c.theirs)
  for (const [i, c] of cases.entries()) await vfs.writeFile(`/work/${i}.txt`, c.ours)
  const before = vfs.version
  const deadlineMs = options?.deadlineMs ?? 15_000
  const deadline = new Promise<never>((_, reject) =>
    setTimeout(() => reject(new Error(`the commit did not answer within ${deadlineMs} ms`)), deadlineMs),
  )
  const result: LandResult = await Promise.race([branch.commit(options), deadline])
  return { vfs, branch, before, result }
}

describe('three-way merge: the worst inputs for its cost are bounded', () => {
  // Handed whole to node-diff3, a file of one repeated line costs it cubic time (4,000 lines: 100 s here); this one has 131,064.
  it('a file at the size bound made of one repeated line, edited at both ends, merges within the deadline', async () => {
    const c = repeatedLinesAtBound()
    const { vfs, result } = await commitCases([c])
    expect(result.ok).toBe(true)
    expect(await vfs.readFile('/work/0.txt', 'utf8')).toBe(bothEdits(c))
  }, 30_000)

  it('hundreds of small hunks on each side merge; long lines (the bound in four lines) merge', async () => {
    const cases = [manySmallHunks(), longLines()]
    // A generous per-file time bound: on a loaded machine the default 50 ms may stop the line diff (a `time` conflict, tested below).
    const { vfs, result } = await commitCases(cases, { limits: { fileTimeoutMs: 5000 } })
    expect(result.ok).toBe(true)
    for (const [i, c] of cases.entries()) expect(await vfs.readFile(`/work/${i}.txt`, 'utf8')).toBe(bothEdits(c))
  }, 30_000)

  it('edits with no untouched line between them, over a long run of repeated lines, conflict by a bound, not by a hang', async () => {
    const { vfs, before, result } = await commitCases([denseRepeatedRegion(600), denseRepeatedRegion(40)])
    expect(result.ok).toBe(false)
    if (result.ok) return
    const reasons = Object.fromEntries(result.conflicts.map(c => [c.path, c.merge?.reason]))
    expect(['edits', 'time']).toContain(reasons['/work/0.txt'])
    expect(reasons['/work/1.txt']).toBe('overlap')
    expect(vfs.version).toBe(before)
  }, 30_000)

  it('a side over the size bound, or past the edit-length bound, conflicts saying why; nothing is written', async () => {
    const big = manySmallHunks(6000)
    expect(big.base.length).toBeGreaterThan(DIFF_LIMITS.maxBytes)
    const sized = await commitCases([big])
    expect(sized.result.ok ? undefined : sized.result.conflicts[0].merge).toMatchObject({ reason: 'size', message: /too large to merge/ })
    const edits = await commitCases([manySmallHunks()], { limits: { maxEditLength: 10, fileTimeoutMs: 5000 } })
    expect(edits.result.ok ? undefined : edits.result.conflicts[0].merge?.reason).toBe('edits')
    expect(edits.vfs.version).toBe(edits.before)
  }, 30_000)

  it('many files at the bound: the commit stops at its time budget (later files conflict with `budget`), and other work runs meanwhile', async () => {
    const cases = Array.from({ length: 12 }, repeatedLinesAtBound)
    const order: string[] = []
    const timer = new Promise<void>(resolve => setTimeout(() => (order.push('timer'), resolve()), 0))
    const { result } = await commitCases(cases, { limits: { budgetMs: 50 } })
    order.push('commit')
    await timer
    expect(result.ok).toBe(false)
    if (result.ok) return
    expect(result.conflicts.some(c => c.merge?.reason === 'budget')).toBe(true)
    expect(result.conflicts.find(c => c.merge?.reason === 'budget')?.message).toMatch(/time budget/)
    // The merges take turns in the diff lane: a timer set meanwhile does not wait for all twelve.
    expect(order[0]).toBe('timer')
  }, 60_000)

  it('many overlapping conflicts carry their hunks up to 256 KiB in all, then only their reason', async () => {
    const line = (tag: string) => `${tag}${'x'.repeat(1000)}\n`
    const c: MergeCase = { base: line('base') + 'end\n', ours: line('ours') + 'end\n', theirs: line('theirs') + 'end\n' }
    const { result } = await commitCases(Array.from({ length: 200 }, () => c))
    expect(result.ok).toBe(false)
    if (result.ok) return
    expect(result.conflicts).toHaveLength(200)
    expect(result.conflicts.every(x => x.merge?.reason === 'overlap')).toBe(true)
    const carried = result.conflicts.filter(x => x.merge?.hunks)
    expect(carried.length).toBeGreaterThan(50)
    expect(carried.length).toBeLessThan(200)
    expect(JSON.stringify(result).length).toBeLessThan(400 * 1024)
    expect(result.conflicts.at(-1)?.merge?.message).toMatch(/hunks left out/)
  }, 30_000)

  it('a merge pays the owner’s quota like any write: over maxHistoryBytes it is refused (EQUOTA), nothing written', async () => {
    const c = manySmallHunks(200)
    const vfs = await open({ quota: { maxHistoryBytes: c.base.length + c.ours.length + 100 } })
    await vfs.writeFile('/work/a.txt', c.base)
    const branch = await vfs.branch()
    await branch.writeFile('/work/a.txt', c.theirs)
    await vfs.writeFile('/work/a.txt', c.ours)
    const before = vfs.version
    const error = await branch.commit().catch((e: unknown) => e)
    expect(isVfsError(error, 'EQUOTA')).toBe(true)
    expect(vfs.version).toBe(before)
    expect(await vfs.readFile('/work/a.txt', 'utf8')).toBe(c.ours)
  })
})
