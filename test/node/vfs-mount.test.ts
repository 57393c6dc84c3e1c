import { describe, expect, it } from 'vitest'
import { memoryStore, openVfs, scopeRun, VfsError } from '../../src/index.js'
import { mount } from '../../src/internal.js'

// mount(): what is at or below a mount point is another workspace's; listings and searches that span
// one ask both sides; nothing of one side leaks into the other.
describe('mount', () => {
  const open = async () => {
    const store = memoryStore()
    const main = await openVfs({ store, namespace: 'm', scope: 'main' })
    const other = await openVfs({ store, namespace: 'm', scope: 'other' })
    await main.writeFile('/work/a.md', 'main a\n')
    await main.writeFile('/state/stale.json', 'hidden: the mount shows the other side')
    await other.writeFile('/state/plan.json', '{"plan":"other"}')
    return { main, other, view: mount(main, { '/state': other }) }
  }

  it('routes single-path operations by path, both ways', async () => {
    const { main, other, view } = await open()
    expect(await view.readFile('/state/plan.json', 'utf8')).toBe('{"plan":"other"}')
    expect(await view.exists('/state/stale.json')).toBe(false)
    await view.writeFile('/state/new.json', '1')
    await view.writeFile('/work/b.md', 'b')
    expect(await other.exists('/state/new.json')).toBe(true)
    expect(await main.exists('/state/new.json')).toBe(false)
    expect(await main.readFile('/work/b.md', 'utf8')).toBe('b')
    expect(await other.exists('/work/b.md')).toBe(false)
  })

  it('lists and searches across the mount point without the hidden side', async () => {
    const { view } = await open()
    expect(await view.readdir('/')).toEqual(['state', 'work'])
    expect(await view.readdir('/', { recursive: true })).toEqual(['state', 'state/plan.json', 'work', 'work/a.md'])
    expect(await view.glob('/**/*.json')).toEqual(['/state/plan.json'])
    expect((await view.walk('/**')).entries.map(e => e.path)).toEqual(['/state/plan.json', '/work/a.md'])
    const grep = await view.grep('hidden|other|main', { regex: true })
    expect(grep.matches.map(m => m.path).sort()).toEqual(['/state/plan.json', '/work/a.md'])
  })

  it('refuses a move across the mount point, copies across it, and refuses removing what spans it', async () => {
    const { main, view } = await open()
    await expect(view.rename('/work/a.md', '/state/a.md')).rejects.toThrow(VfsError)
    expect(await main.exists('/work/a.md')).toBe(true)
    await view.copy('/work/a.md', '/state/a.md')
    expect(await view.readFile('/state/a.md', 'utf8')).toBe('main a\n')
    await expect(view.rmdir('/', { recursive: true })).rejects.toMatchObject({ code: 'EINVAL' })
  })

  it('is a workspace a run view goes over: the run roots route as their paths do', async () => {
    const { view } = await open()
    const run = scopeRun(view, {
      runId: 'r',
      roots: { work: { writable: true, target: '/work' }, state: { writable: true, target: '/state' } },
    })
    expect(await run.readdir('/state')).toEqual(['plan.json'])
    expect((await run.grep('main')).matches.map(m => m.path)).toEqual(['/work/a.md'])
  })
})
