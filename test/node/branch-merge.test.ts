import { describe, expect, it } from 'vitest'
import { memoryStore, openVfs } from '../../src/index.js'

const open = () => openVfs({ store: memoryStore(), namespace: 'merge', scope: `s${Math.random()}`, autoRefresh: false })
const lines = (n: number, tag = 'line') => Array.from({ length: n }, (_, i) => `${tag} ${i}\n`).join('')

/** A workspace holding `base` at /work/a.txt, a branch of it, then `ours` written to the workspace and `theirs` to the branch. */
async function bothSides(base: string | Uint8Array, ours: string | Uint8Array, theirs: string | Uint8Array) {
  const vfs = await open()
  await vfs.writeFile('/work/a.txt', base)
  const branch = await vfs.branch()
  await branch.writeFile('/work/a.txt', theirs)
  await vfs.writeFile('/work/a.txt', ours)
  return { vfs, branch, before: vfs.version }
}

describe('branch commit: three-way merge', () => {
  it('merges a text file both sides changed without overlap, in one group commit with the branch other changes', async () => {
    const base = lines(20)
    const ours = base.replace('line 2\n', 'line two\n')
    const theirs = base.replace('line 15\n', 'line fifteen\n')
    const { vfs, branch, before } = await bothSides(base, ours, theirs)
    await branch.writeFile('/work/b.txt', 'new')
    const result = await branch.commit()
    expect(result.ok).toBe(true)
    if (!result.ok) return
    expect(result.version).toBe(before + 1)
    expect(await vfs.readFile('/work/a.txt', 'utf8')).toBe(base.replace('line 2\n', 'line two\n').replace('line 15\n', 'line fifteen\n'))
    expect(await vfs.readFile('/work/b.txt', 'utf8')).toBe('new')
    expect(result.changes.map(c => c.path).sort()).toEqual(['/work/a.txt', '/work/b.txt'])
    // The merged file has its bounded diff like any other.
    const entry = (await vfs.diff(before)).entries.find(e => e.path === '/work/a.txt')!
    expect(entry).toMatchObject({ status: 'changed', added: 1, removed: 1 })
    expect(entry.patch).toContain('+line fifteen')
  })

  it('overlapping edits conflict with base, ours and theirs of the hunk, and nothing is written', async () => {
    const base = lines(10)
    const { vfs, branch, before } = await bothSides(base, base.replace('line 4\n', 'ours 4\n'), base.replace('line 4\n', 'theirs 4\n'))
    await branch.writeFile('/work/b.txt', 'new')
    const result = await branch.commit()
    expect(result.ok).toBe(false)
    if (result.ok) return
    expect(result.conflicts).toHaveLength(1)
    expect(result.conflicts[0]).toMatchObject({
      path: '/work/a.txt',
      merge: {
        reason: 'overlap',
        hunks: [{ base: { line: 5, text: 'line 4\n' }, ours: { line: 5, text: 'ours 4\n' }, theirs: { line: 5, text: 'theirs 4\n' } }],
      },
    })
    expect(vfs.version).toBe(before)
    expect(await vfs.exists('/work/b.txt')).toBe(false)
    // The branch stays: it can be changed and committed again.
    await branch.writeFile('/work/a.txt', base.replace('line 4\n', 'ours 4\n').replace('line 8\n', 'eight\n'))
    const again = await branch.commit()
    expect(again.ok).toBe(true)
    expect(await vfs.readFile('/work/a.txt', 'utf8')).toBe(base.replace('line 4\n', 'ours 4\n').replace('line 8\n', 'eight\n'))
  })

  it('edits to adjacent lines conflict (as diff3 has them); identical edits on both sides merge', async () => {
    const base = lines(10)
    const adjacent = await bothSides(base, base.replace('line 4\n', 'x\n'), base.replace('line 5\n', 'y\n'))
    const r1 = await adjacent.branch.commit()
    expect(r1.ok ? undefined : r1.conflicts[0].merge?.reason).toBe('overlap')
    const same = await bothSides(base, base.replace('line 4\n', 'x\n'), base.replace('line 4\n', 'x\n'))
    expect((await same.branch.commit()).ok).toBe(true)
    expect(await same.vfs.readFile('/work/a.txt', 'utf8')).toBe(base.replace('line 4\n', 'x\n'))
  })

  it('merge: false keeps the strict check: any path changed on both sides conflicts', async () => {
    const base = lines(20)
    const { vfs, branch, before } = await bothSides(base, base.replace('line 2\n', 'two\n'), base.replace('line 15\n', 'fifteen\n'))
    const result = await branch.commit({ merge: false })
    expect(result.ok).toBe(false)
    if (result.ok) return
    expect(result.conflicts[0].path).toBe('/work/a.txt')
    expect(result.conflicts[0].merge).toBeUndefined()
    expect(vfs.version).toBe(before)
  })

  it('a binary file, a delete against an edit (either side) and a move conflict, with their reason', async () => {
    const bin = (n: number) => new Uint8Array([0xff, 0xfe, n, 10, 1, 2, 10])
    const binary = await bothSides(bin(1), bin(2), bin(3))
    const rb = await binary.branch.commit()
    expect(rb.ok ? undefined : rb.conflicts[0].merge?.reason).toBe('binary')

    const base = lines(10)
    const deletedThere = await bothSides(base, base.replace('line 1\n', 'one\n'), base)
    await deletedThere.branch.deleteFile('/work/a.txt')
    const rd = await deletedThere.branch.commit()
    expect(rd.ok ? undefined : rd.conflicts[0].merge).toMatchObject({ reason: 'delete', message: /the branch deleted or moved/ })

    const deletedHere = await bothSides(base, base, base.replace('line 1\n', 'one\n'))
    await deletedHere.vfs.deleteFile('/work/a.txt')
    const rh = await deletedHere.branch.commit()
    expect(rh.ok ? undefined : rh.conflicts[0].merge).toMatchObject({ reason: 'delete', message: /the workspace deleted or moved/ })
    expect(await deletedHere.vfs.exists('/work/a.txt')).toBe(false)

    const moved = await bothSides(base, base.replace('line 1\n', 'one\n'), base)
    await moved.branch.rename('/work/a.txt', '/work/c.txt')
    const rm = await moved.branch.commit()
    expect(rm.ok).toBe(false)
    expect(await moved.vfs.exists('/work/c.txt')).toBe(false)
  })

  it('merges against what another instance of the workspace wrote since (it catches up once), in one commit', async () => {
    const store = memoryStore()
    const opts = { store, namespace: 'merge', scope: 'two-instances', autoRefresh: false }
    const a = await openVfs(opts)
    const base = lines(12)
    await a.writeFile('/work/a.txt', base)
    const b = await openVfs(opts)
    const branch = await a.branch()
    await branch.writeFile('/work/a.txt', base.replace('line 10\n', 'ten\n'))
    await b.writeFile('/work/a.txt', base.replace('line 1\n', 'one\n'))
    const result = await branch.commit()
    expect(result.ok).toBe(true)
    await b.refresh()
    expect(await b.readFile('/work/a.txt', 'utf8')).toBe(base.replace('line 1\n', 'one\n').replace('line 10\n', 'ten\n'))
  })

  it('keeps line endings and a byte-order mark byte for byte', async () => {
    const base = '\ufeffa\r\nb\r\nc\r\nd\r\ne\r\nno newline at the end'
    const { vfs, branch } = await bothSides(base, base.replace('a\r\n', 'A\r\n'), base.replace('end', 'END'))
    expect((await branch.commit()).ok).toBe(true)
    expect(await vfs.readFile('/work/a.txt', 'utf8')).toBe('\ufeffA\r\nb\r\nc\r\nd\r\ne\r\nno newline at the END')
    expect(Array.from((await vfs.readFile('/work/a.txt')).subarray(0, 3))).toEqual([0xef, 0xbb, 0xbf])
  })
})
