import { describe, expect, it } from 'vitest'
import { memoryStore, openVfs, type VfsChange, type VfsStore } from '../../src/index.js'

/** A memory store whose commit notices the test delivers by hand, in any order, like slow tabs. */
function manualWatchStore() {
  const inner = memoryStore()
  const listeners = new Set<(version: number) => void>()
  const store: VfsStore = {
    ...inner,
    watch: (_ns, _scope, listener) => (listeners.add(listener), () => listeners.delete(listener)),
  }
  return { store, inner, notify: (version: number) => listeners.forEach(l => l(version)) }
}

const refreshed = (vfs: { onChange(l: (c: VfsChange) => void): () => void }) =>
  new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('no refresh within 2 s')), 2000)
    const off = vfs.onChange(c => c.type === 'refreshed' && (clearTimeout(timer), off(), resolve()))
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
    a.onChange(c => changes.push(c.type))
    await a.writeFile('/x', '1')
    notify(1)
    await new Promise(r => setTimeout(r, 20))
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
        await inner.commit(ns, scope, [
          {
            op: 'put',
            path: '/late',
            kind: 'file',
            data: new TextEncoder().encode('late'),
            mtime: 1,
            ctime: 1,
            expectedVersion: 0,
          },
        ])
        notify(1)
        return snapshot
      },
    }
    const a = await openVfs({ store: slow, namespace: 'w', scope: 's' })
    for (let i = 0; i < 200 && !(await a.exists('/late')); i++) await new Promise(r => setTimeout(r, 10))
    expect(await a.readFile('/late', 'utf8')).toBe('late')
  })
})

describe('refresh and no-op writes around the journal', () => {
  it('keeps its own write that became durable while a refresh was loading', async () => {
    const inner = memoryStore()
    let release!: () => void
    let hold: Promise<void> | undefined
    const store: VfsStore = {
      ...inner,
      async load(ns, scope) {
        const snapshot = await inner.load(ns, scope)
        if (hold) await hold
        return snapshot
      },
    }
    const vfs = await openVfs({ store, namespace: 'w', scope: 'r', autoRefresh: false })
    hold = new Promise<void>(r => (release = r))
    const refreshing = vfs.refresh()
    await new Promise(r => setTimeout(r, 0))
    await vfs.writeFile('/b.txt', 'written during the load')
    release()
    await refreshing
    expect(await vfs.readFile('/b.txt', 'utf8')).toBe('written during the load')
    await vfs.writeFile('/b.txt', 'and again') // no ECONFLICT against its own write
  })

  it('a no-op mkdir waits for that directory only, not for an unrelated failure', async () => {
    const inner = memoryStore()
    let fail = false
    const store: VfsStore = {
      ...inner,
      commit: (ns, scope, ops) => (fail ? Promise.reject(new Error('down')) : inner.commit(ns, scope, ops)),
    }
    const vfs = await openVfs({ store, namespace: 'w', scope: 'm' })
    await vfs.mkdir('/d')
    fail = true
    await expect(vfs.writeFile('/x', 'x')).rejects.toThrow(/ESTORE/)
    fail = false
    await vfs.mkdir('/d') // exists and is durable: nothing to wait for, nothing to report
    await expect(vfs.flush()).rejects.toThrow(/ESTORE/) // the failure is still reported by flush()
    const pending = vfs.mkdir('/e')
    await vfs.mkdir('/e') // waits for /e's own write
    await pending
    expect(await vfs.exists('/e')).toBe(true)
  })
})
