import { describe, expect, it } from 'vitest'
import { memoryStore, openVfs, restrict, scopeRun, vfsRegistry, VfsError, type RunVfs } from '../../src/index.js'
import { textReaderOf } from '../../src/internal.js'
import { createRunJs } from '../../src/run-js/index.js'
import { runJsView, stateReadOnly } from '../../src/agent/policy/run-js-view.js'
import { guardVfs } from '../../src/agent/policy/guarded-vfs.js'

describe('the workspace layer: every view forwards every side channel', () => {
  it('a registry handle keeps the promise-free reader; an evicted scope answers "not now", then reads by promise', async () => {
    const reg = vfsRegistry({ store: memoryStore(), maxCached: 1 })
    const a = await reg.open('ns', 'a')
    await a.writeFile('/x.md', 'hello')
    const read = textReaderOf(a)
    expect(read).toBeTypeOf('function')
    expect(read!('/x.md')).toBe('hello')
    expect(() => read!('/missing')).toThrow(VfsError)
    await reg.open('ns', 'b') // evicts a
    await reg.evict('ns', 'a')
    expect(read!('/x.md')).toBeUndefined()
    // run_js falls back to readFile, which reopens the scope.
    const r = await createRunJs({ vfs: a }).run(`return await vfs.read('/x.md')`)
    expect(r).toMatchObject({ success: true, result: 'hello' })
    expect(read!('/x.md')).toBe('hello')
    await a.close()
    expect(read!('/x.md')).toBeUndefined()
    await reg.closeAll()
  })

  it('a synchronous read through a handle counts as a use of its scope', async () => {
    const reg = vfsRegistry({ store: memoryStore(), maxCached: 2 })
    const a = await reg.open('ns', 'a')
    await a.writeFile('/x', 'x')
    await reg.open('ns', 'b')
    textReaderOf(a)!('/x') // a is now more recent than b
    await reg.open('ns', 'c')
    expect(
      reg
        .cached()
        .map(c => c.scope)
        .sort(),
    ).toEqual(['a', 'c'])
    await reg.closeAll()
  })

  it('a guard and a read-only view over a run view keep its roots, resolve, seed and reader', async () => {
    const vfs = await openVfs({ store: memoryStore(), namespace: 'ns', scope: 's' })
    const run = scopeRun(vfs, { runId: 'r1' })
    const guarded = guardVfs(run, () => undefined)
    expect(guarded.roots).toEqual(run.roots)
    expect(guarded.resolve('/work/a')).toBe('/runs/r1/work/a')
    await guarded.seed('/context/c.md', 'seeded')
    expect(textReaderOf(guarded)!('/context/c.md')).toBe('seeded')
    const ro = restrict(run, { readOnly: ['/work'] })
    expect(ro.roots.work.writable).toBe(false)
    expect(ro.roots.outputs.writable).toBe(true)
    await expect(ro.writeFile('/work/a', 'x')).rejects.toMatchObject({
      code: 'EACCES',
      message: expect.stringMatching(/read-only/),
    })
    await ro.writeFile('/outputs/a', 'x')
    expect(await vfs.readFile('/runs/r1/outputs/a', 'utf8')).toBe('x')
  })

  it('readOnly: true refuses every change and allows every read', async () => {
    const vfs = await openVfs({ store: memoryStore(), namespace: 'ns', scope: 's' })
    await vfs.writeFile('/a.md', 'a')
    const ro = restrict(vfs, { readOnly: true })
    expect(await ro.readFile('/a.md', 'utf8')).toBe('a')
    expect(textReaderOf(ro)!('/a.md')).toBe('a')
    expect((await ro.walk('/**')).entries.map(e => e.path)).toEqual(['/a.md'])
    const changes = [ro.writeFile('/b', 'b'), ro.appendFile('/a.md', 'b'), ro.deleteFile('/a.md'), ro.mkdir('/d')]
    for (const change of [...changes, ro.rename('/a.md', '/c'), ro.copy('/a.md', '/c')]) {
      await expect(change).rejects.toMatchObject({ code: 'EACCES' })
    }
    expect(await vfs.readdir('/')).toEqual(['a.md'])
  })

  it('roots: a plain workspace seen through its own roots, seedable; the run_js view over a run view is one layer', async () => {
    const vfs = await openVfs({ store: memoryStore(), namespace: 'ns', scope: 's' })
    const view = restrict(vfs, { roots: ['context', 'work'], readOnly: ['/context'] })
    expect(await view.readdir('/')).toEqual(['context', 'work'])
    await expect(view.writeFile('/context/a', 'x')).rejects.toMatchObject({ code: 'EACCES' })
    await expect(view.readFile('/etc/passwd')).rejects.toMatchObject({ code: 'EACCES' })
    await view.seed('/context/a', 'x')
    expect(await vfs.readFile('/context/a', 'utf8')).toBe('x')
    const run = scopeRun(vfs, { runId: 'r1' })
    const js = runJsView(run, () => [])
    expect(Object.getPrototypeOf(js)).not.toBe(Object.getPrototypeOf(run))
    expect((js as unknown as { base: unknown }).base).toBe(run)
    expect(js.roots.state.writable).toBe(false)
    const plain = stateReadOnly(vfs) as RunVfs
    await expect(plain.writeFile('/state/plan.json', '{}')).rejects.toMatchObject({ code: 'EACCES' })
    await expect(plain.readFile('/runs/r1/work/x')).rejects.toMatchObject({ code: 'EACCES' })
  })
})
