import { describe, expect, it } from 'vitest'
import { memoryStore, vfsRegistry, type Vfs, type VfsChange, type VfsStore } from '../../src/index.js'
import { failingStore } from '../conformance/failing-store.js'

/** A real memory store that counts loads per scope. */
function countingStore(): { store: VfsStore; loads: string[] } {
  const inner = memoryStore()
  const loads: string[] = []
  return { loads, store: { ...inner, kind: inner.kind, load: (ns, s) => (loads.push(s), inner.load(ns, s)) } }
}

const scopes = (reg: ReturnType<typeof vfsRegistry>) =>
  reg
    .cached()
    .map(c => c.scope)
    .sort()

describe('vfsRegistry: bounded, least recently used', () => {
  it('keeps at most maxCached workspaces, dropping the least recently used (any call counts as use)', async () => {
    const reg = vfsRegistry({ store: memoryStore(), maxCached: 2 })
    const a = await reg.open('ns', 'a')
    await reg.open('ns', 'b')
    await a.writeFile('/x', 'x') // a is now more recent than b
    await reg.open('ns', 'c')
    expect(scopes(reg)).toEqual(['a', 'c'])
    for (let i = 0; i < 20; i++) await reg.open('ns', `s${i}`)
    expect(reg.cached()).toHaveLength(2)
    expect(() => vfsRegistry({ store: memoryStore(), maxCached: 0 })).toThrow(/maxCached/)
  })

  it('flushes before it evicts: writes in flight at eviction are durable', async () => {
    let release!: () => void
    const store = failingStore(memoryStore(), { gate: new Promise<void>(r => (release = r)) })
    const reg = vfsRegistry({ store, maxCached: 1 })
    const a = await reg.open('ns', 'a')
    const writes = [a.writeFile('/one.txt', '1'), a.writeFile('/two.txt', '2')]
    const opening = reg.open('ns', 'b')
    // a is busy while its writes are in flight: it stays, over the bound, until they are durable.
    await new Promise(r => setTimeout(r, 20))
    expect(scopes(reg)).toContain('a')
    release()
    await Promise.all(writes)
    await opening
    await reg.open('ns', 'c')
    expect(scopes(reg)).toEqual(['c'])
    const fresh = vfsRegistry({ store })
    const again = await fresh.open('ns', 'a')
    expect(await again.readFile('/one.txt', 'utf8')).toBe('1')
    expect(await again.readFile('/two.txt', 'utf8')).toBe('2')
  })

  it('an evicted workspace that is still in use keeps working and loses no writes', async () => {
    const { store, loads } = countingStore()
    const reg = vfsRegistry({ store, maxCached: 1 })
    const held = await reg.open('ns', 'held')
    const changes: VfsChange[] = []
    held.onChange(c => changes.push(c))
    await held.writeFile('/before.txt', 'before')
    await reg.open('ns', 'other') // evicts "held"
    expect(scopes(reg)).toEqual(['other'])
    // The holder writes on: the scope is opened again (one instance), nothing is refused or lost.
    await held.writeFile('/after.txt', 'after')
    await held.appendFile('/before.txt', '+more')
    expect(scopes(reg)).toEqual(['held'])
    expect(loads.filter(s => s === 'held')).toHaveLength(2)
    const reopened = await reg.open('ns', 'held')
    expect(await reopened.readFile('/after.txt', 'utf8')).toBe('after')
    expect(await reopened.readFile('/before.txt', 'utf8')).toBe('before+more')
    // Both handles reach the same instance: a write through one is read at once through the other.
    const p = reopened.writeFile('/shared.txt', 'now')
    expect(await held.readFile('/shared.txt', 'utf8')).toBe('now')
    await p
    expect(held.usage().files).toBe(3)
    // Listeners survive eviction and reopening.
    expect(changes.filter(c => c.type === 'commit').flatMap(c => (c.type === 'commit' ? c.paths : []))).toEqual([
      '/before.txt',
      '/after.txt',
      '/before.txt',
      '/shared.txt',
    ])
    // Durable for anyone, not only in this process's memory.
    const outside = await vfsRegistry({ store }).open('ns', 'held')
    expect((await outside.readdir('/')).sort()).toEqual(['after.txt', 'before.txt', 'shared.txt'])
  })

  it('writes racing with many evictions all land', async () => {
    const store = memoryStore()
    const reg = vfsRegistry({ store, maxCached: 2 })
    const handles: Vfs[] = []
    for (let i = 0; i < 6; i++) handles.push(await reg.open('ns', `w${i}`))
    await Promise.all(handles.flatMap((h, i) => Array.from({ length: 5 }, (_, j) => h.writeFile(`/f${j}.txt`, `${i}-${j}`))))
    expect(reg.cached().length).toBeLessThanOrEqual(2)
    const check = vfsRegistry({ store })
    for (let i = 0; i < handles.length; i++) {
      const v = await check.open('ns', `w${i}`)
      for (let j = 0; j < 5; j++) expect(await v.readFile(`/f${j}.txt`, 'utf8')).toBe(`${i}-${j}`)
    }
  })

  it('an explicit evict() between writes loses none of them, and flush() waits for the eviction', async () => {
    const store = memoryStore()
    const reg = vfsRegistry({ store })
    const a = await reg.open('ns', 'a')
    const first = a.writeFile('/1', 'one')
    const evicted = reg.evict('ns', 'a')
    const second = a.writeFile('/2', 'two')
    await a.flush()
    await Promise.all([first, evicted, second])
    const check = await vfsRegistry({ store }).open('ns', 'a')
    expect([await check.readFile('/1', 'utf8'), await check.readFile('/2', 'utf8')]).toEqual(['one', 'two'])
  })

  it('close() on a handle ends that handle only', async () => {
    const reg = vfsRegistry({ store: memoryStore() })
    const a = await reg.open('ns', 'a')
    const b = await reg.open('ns', 'a')
    await a.writeFile('/x', 'x')
    await a.close()
    await expect(a.readFile('/x', 'utf8')).rejects.toMatchObject({ code: 'ECLOSED' })
    expect(await b.readFile('/x', 'utf8')).toBe('x')
  })
})
