import { describe, expect, it } from 'vitest'
import { memoryStore, openVfs, type VfsChange, type VfsStore } from '../../src/index.js'

/** A memory store whose commit notices the test delivers by hand, in any order, like slow tabs. */
function manualWatchStore() {
  const inner = memoryStore()
  const listeners = new Set<(version: number) => void>()
  const store: VfsStore = { ...inner, watch: (_ns, _scope, listener) => (listeners.add(listener), () => listeners.delete(listener)) }
  return { store, inner, notify: (version: number) => listeners.forEach((l) => l(version)) }
}

const refreshed = (vfs: { onChange(l: (c: VfsChange) => void): () => void }) =>
  new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('no refresh within 2 s')), 2000)
    const off = vfs.onChange((c) => c.type === 'refreshed' && (clearTimeout(timer), off(), resolve()))
  })

describe('learning of other writers’ commits', () => {
  it('refreshes on a notice that arrives after its own later commit', async () => {
    const { store, inner, notify } = manualWatchStore()
    const a = await openVfs({ store, namespace: 'w', scope: 's' })
    const otherTab = await openVfs({ store: inner, namespace: 'w', scope: 's' })
    await otherTab.writeFile('/from-b.txt', 'b') // version 1; its notice is delayed
    await a.writeFile('/from-a.txt', 'a') // version 2
    const done = refreshed(a)
    notify(1)
    await done
    expect(await a.readFile('/from-b.txt', 'utf8')).toBe('b')
    expect(await a.readFile('/from-a.txt', 'utf8')).toBe('a')
  })

  it('ignores notices of its own commits', async () => {
    const { store, notify } = manualWatchStore()
    const a = await openVfs({ store, namespace: 'w', scope: 's' })
    const changes: string[] = []
    a.onChange((c) => changes.push(c.type))
    await a.writeFile('/x', '1')
    notify(1)
    await new Promise((r) => setTimeout(r, 20))
    expect(changes).toEqual(['commit'])
  })

  it('does not miss a commit that lands while it loads', async () => {
    const { store, inner, notify } = manualWatchStore()
    let injected = false
    const slow: VfsStore = {
      ...store,
      async load(ns, scope) {
        const snapshot = await store.load(ns, scope)
        if (injected) return snapshot
        injected = true
        await inner.commit(ns, scope, [{ op: 'put', path: '/late', kind: 'file', data: new TextEncoder().encode('late'), mtime: 1, ctime: 1, expectedVersion: 0 }])
        notify(1)
        return snapshot
      },
    }
    const a = await openVfs({ store: slow, namespace: 'w', scope: 's' })
    for (let i = 0; i < 200 && !(await a.exists('/late')); i++) await new Promise((r) => setTimeout(r, 10))
    expect(await a.readFile('/late', 'utf8')).toBe('late')
  })
})
