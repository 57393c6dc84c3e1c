import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { isVfsError, openVfs, type VfsStore } from '../../src/index.js'
import { failingStore } from './failing-store.js'
import { bigFile, binarySamples, textTree } from './samples.js'
import type { StoreHarness } from './store-suite.js'

/**
 * The workspace's durability promises, checked on top of a real store: acknowledged writes survive
 * reopening, failed batches leave nothing behind, stale writers get ECONFLICT.
 */
export function describeVfsDurability(name: string, setup: () => Promise<StoreHarness>): void {
  describe(`workspace durability: ${name}`, () => {
    let h: StoreHarness
    let n = 0
    const ns = 'durability'
    const fresh = () => `scope-${Date.now().toString(36)}-${++n}`
    const open = (store: VfsStore, scope: string) => openVfs({ store, namespace: ns, scope, autoRefresh: false })
    const snapshotOf = textTree

    beforeAll(async () => {
      h = await setup()
    })
    afterAll(async () => {
      await h?.cleanup?.()
    })

    it('reopens with exactly what was written, bytes included', async () => {
      const s = fresh()
      const a = await open(h.store, s)
      const samples = binarySamples()
      await Promise.all(Object.entries(samples).map(([p, d]) => a.writeFile(p, d)))
      await a.mkdir('/empty/dir')
      await a.appendFile('/log.txt', 'one\n')
      await a.appendFile('/log.txt', 'two\n')
      await a.close()
      const b = await open(h.store, s)
      for (const [p, d] of Object.entries(samples)) expect(Array.from(await b.readFile(p)), p).toEqual(Array.from(d))
      expect(await b.readFile('/log.txt', 'utf8')).toBe('one\ntwo\n')
      expect((await b.stat('/empty/dir')).type).toBe('directory')
      expect(await b.readFile('/bin/bom.txt', 'utf8')).toBe('\uFEFFa\r\nb')
    })

    it('group-commits concurrent writes into few batches, all durable', async () => {
      const s = fresh()
      const store = failingStore(h.store)
      const vfs = await open(store, s)
      await Promise.all(Array.from({ length: 500 }, (_, i) => vfs.writeFile(`/g/${i}.txt`, `content ${i}`)))
      expect(store.commits).toBeLessThanOrEqual(3)
      const again = await open(h.store, s)
      expect(await again.readdir('/g')).toHaveLength(500)
      expect(await again.readFile('/g/499.txt', 'utf8')).toBe('content 499')
    })

    for (const mode of ['before the store', 'mid-batch'] as const) {
      it(`rolls back a batch that fails ${mode}; reopening shows exactly the acknowledged writes`, async () => {
        const s = fresh()
        const store = failingStore(h.store)
        const vfs = await open(store, s)
        await vfs.writeFile('/keep.txt', 'durable v1')
        await vfs.writeFile('/dir/old.txt', 'old')
        const failAt = store.commits + 1
        store.plan = mode === 'mid-batch' ? { failMidBatch: [failAt] } : { failCommits: [failAt] }
        // One batch: an overwrite, a rename, a delete and new files. All of it must fail together.
        const results = await Promise.allSettled([
          vfs.writeFile('/keep.txt', 'v2 never acknowledged'),
          vfs.rename('/dir', '/moved'),
          vfs.writeFile('/new/a.txt', 'a'),
          vfs.writeFile('/new/b.txt', 'b'),
          vfs.deleteFile('/keep.txt'),
        ])
        expect(results.every(r => r.status === 'rejected')).toBe(true)
        for (const r of results) {
          const reason = (r as PromiseRejectedResult).reason
          expect(isVfsError(reason, 'ESTORE'), String(reason)).toBe(true)
        }
        await expect(vfs.flush()).rejects.toThrow(/ESTORE/)
        // Memory went back to the last durable state…
        const expected = { '/keep.txt': 'durable v1', '/dir': '<dir>', '/dir/old.txt': 'old' }
        expect(await snapshotOf(vfs)).toEqual(expected)
        // …and the workspace keeps working after the failure.
        await vfs.writeFile('/after.txt', 'after')
        const reopened = await open(h.store, s)
        expect(await snapshotOf(reopened)).toEqual({ ...expected, '/after.txt': 'after' })
      })
    }

    it('fails queued writes that build on a failed batch, keeps independent ones', async () => {
      const s = fresh()
      const store = failingStore(h.store)
      const vfs = await open(store, s)
      await vfs.writeFile('/base.txt', 'base')
      let release!: () => void
      store.plan = { failCommits: [store.commits + 1], gate: new Promise<void>(r => (release = r)) }
      const first = vfs.writeFile('/a.txt', 'first')
      first.catch(() => undefined)
      await new Promise(r => setTimeout(r, 0)) // the commit of /a.txt is now in flight, held by the gate
      // Queued behind the failing commit: one builds on /a.txt, one is independent.
      const dependent = vfs.appendFile('/a.txt', ' plus more')
      const independent = vfs.writeFile('/b.txt', 'independent')
      dependent.catch(() => undefined)
      store.plan = { failCommits: store.plan.failCommits }
      release()
      const [r1, r2, r3] = await Promise.allSettled([first, dependent, independent])
      expect(r1.status).toBe('rejected')
      expect(r2.status).toBe('rejected')
      expect(r3.status).toBe('fulfilled')
      const reopened = await open(h.store, s)
      expect(await snapshotOf(reopened)).toEqual({ '/base.txt': 'base', '/b.txt': 'independent' })
    })

    it('detects a second writer: ECONFLICT instead of a lost update, refresh() catches up', async () => {
      const s = fresh()
      const a = await open(h.store, s)
      await a.writeFile('/shared.md', 'from a')
      const b = await open(h.store, s)
      await b.writeFile('/shared.md', 'from b')
      const error = await a.writeFile('/shared.md', 'a again, stale').catch(e => e)
      expect(isVfsError(error, 'ECONFLICT'), String(error)).toBe(true)
      expect(await a.readFile('/shared.md', 'utf8')).toBe('from a')
      await a.refresh()
      expect(await a.readFile('/shared.md', 'utf8')).toBe('from b')
      const v = (await a.stat('/shared.md')).version
      await a.writeFile('/shared.md', 'a after refresh', { expectedVersion: v })
      expect(await (await open(h.store, s)).readFile('/shared.md', 'utf8')).toBe('a after refresh')
      // Deleted and recreated elsewhere: the old version must not match again.
      await b.refresh()
      await b.deleteFile('/shared.md')
      await b.writeFile('/shared.md', 'recreated by b')
      const stale = await a.writeFile('/shared.md', 'a, stale twice').catch(e => e)
      expect(isVfsError(stale, 'ECONFLICT')).toBe(true)
      // Writers on different files do not conflict.
      await a.refresh()
      await Promise.all([a.writeFile('/only-a.txt', 'a'), b.writeFile('/only-b.txt', 'b')])
    })

    it('enforces quotas before anything is written', async () => {
      const s = fresh()
      const vfs = await openVfs({ store: h.store, namespace: ns, scope: s, quota: { maxBytes: 100, maxFiles: 3 } })
      await vfs.writeFile('/a', 'x'.repeat(60))
      expect(isVfsError(await vfs.writeFile('/b', 'y'.repeat(41)).catch(e => e), 'EQUOTA')).toBe(true)
      await vfs.writeFile('/b', 'y'.repeat(40))
      await vfs.writeFile('/c', '')
      expect(isVfsError(await vfs.writeFile('/d', '').catch(e => e), 'EQUOTA')).toBe(true)
      expect(isVfsError(await vfs.copy('/a', '/e').catch(e => e), 'EQUOTA')).toBe(true)
      await vfs.writeFile('/a', 'x'.repeat(10)) // shrinking is always allowed
      const reopened = await open(h.store, s)
      expect(await reopened.readdir('/')).toEqual(['a', 'b', 'c'])
      expect(reopened.usage()).toMatchObject({ bytes: 50, files: 3 })
    })

    it('renames a whole directory atomically and durably', async () => {
      const s = fresh()
      const vfs = await open(h.store, s)
      await Promise.all(Array.from({ length: 50 }, (_, i) => vfs.writeFile(`/src/sub${i % 5}/f${i}.txt`, `f${i}`)))
      await vfs.rename('/src', '/dst/renamed')
      const reopened = await open(h.store, s)
      expect(await reopened.exists('/src')).toBe(false)
      expect(await reopened.readdir('/dst/renamed/sub3')).toHaveLength(10)
      expect(await reopened.readFile('/dst/renamed/sub4/f49.txt', 'utf8')).toBe('f49')
    })

    it('stores a 10 MB file through the workspace', async () => {
      const s = fresh()
      const vfs = await open(h.store, s)
      const big = bigFile(10 * 1024 * 1024, 7)
      await vfs.writeFile('/big/file.bin', big)
      const back = await (await open(h.store, s)).readFile('/big/file.bin')
      expect(back.length).toBe(big.length)
      let same = true
      for (let i = 0; i < big.length; i += 4093) if (back[i] !== big[i]) same = false
      expect(same && back[big.length - 1] === big[big.length - 1]).toBe(true)
    }, 120_000)
  })
}
