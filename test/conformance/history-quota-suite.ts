import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openVfs, type VfsQuota, type VfsStore } from '../../src/index.js'
import type { StoreHarness } from './store-suite.js'

/**
 * History counted against a workspace's quota and collected by retention (docs/history.md,
 * "Retention and quota"), on a real store. The attack of issue 27 (case 2) at the library's level:
 * one path written 30 times with 1 MB must not grow the store without bound.
 */
export function describeHistoryQuota(name: string, setup: () => Promise<StoreHarness>): void {
  describe(`history quota and retention: ${name}`, () => {
    let h: StoreHarness
    let n = 0
    const ns = 'history-quota'
    const fresh = () => `q-${Date.now().toString(36)}-${++n}`
    const open = (store: VfsStore, scope: string, quota?: VfsQuota) => openVfs({ store, namespace: ns, scope, quota, autoRefresh: false })
    const mb = (i: number) => new Uint8Array(1_000_000).fill(i)
    const stored = async (scope: string) => (await h.store.history!.usage(ns, scope)).bytes

    beforeAll(async () => {
      h = await setup()
    })
    afterAll(async () => {
      await h?.cleanup?.()
    })

    it('30 × 1 MB to one path under maxHistoryBytes 4 MB: EQUOTA before history passes it, nothing of the refused write lands', async () => {
      const scope = fresh()
      const vfs = await open(h.store, scope, { maxHistoryBytes: 4_000_000 })
      const outcomes: string[] = []
      for (let i = 1; i <= 30; i++)
        outcomes.push(
          await vfs.writeFile('/work/big.bin', mb(i)).then(
            () => 'ok',
            e => e.code,
          ),
        )
      expect(outcomes.slice(0, 4)).toEqual(['ok', 'ok', 'ok', 'ok'])
      expect(outcomes.slice(4).every(o => o === 'EQUOTA')).toBe(true)
      expect(await stored(scope)).toBeLessThanOrEqual(4_000_000)
      expect((await vfs.readFile('/work/big.bin'))[0]).toBe(4)
      // The meter errs on the side of the quota, never below what the store holds.
      expect(vfs.usage().historyBytes).toBeGreaterThanOrEqual(await stored(scope))
      // A delete keeps what it removes in history: refused too while history is full.
      await expect(vfs.deleteFile('/work/big.bin')).rejects.toMatchObject({ code: 'EQUOTA' })
      // Collection makes room; a reopened workspace counts what the store holds.
      const r = await vfs.gc({ maxBytes: 1_500_000 })
      expect(r.removedChanges).toBeGreaterThan(0)
      expect(await stored(scope)).toBeLessThanOrEqual(1_500_000)
      await vfs.writeFile('/work/big.bin', mb(5))
      const again = await open(h.store, scope, { maxHistoryBytes: 4_000_000 })
      expect(again.usage().historyBytes).toBe(await stored(scope))
      await vfs.close()
      await again.close()
    })

    it('maxStoredBytes counts files and history together; a delete always passes; new files are refused when full', async () => {
      const scope = fresh()
      const vfs = await open(h.store, scope, { maxStoredBytes: 3_500_000 })
      await vfs.writeFile('/work/a.bin', mb(1))
      await vfs.writeFile('/work/a.bin', mb(2)) // 1 MB of files, 1 MB of history
      await vfs.writeFile('/work/b.bin', mb(3)) // 2 MB of files
      await expect(vfs.writeFile('/work/a.bin', mb(4))).rejects.toMatchObject({ code: 'EQUOTA' })
      await expect(vfs.writeFile('/work/c.bin', mb(5))).rejects.toMatchObject({ code: 'EQUOTA' })
      await vfs.deleteFile('/work/b.bin') // moves 1 MB from files to history
      expect(vfs.usage().bytes + vfs.usage().historyBytes!).toBeLessThanOrEqual(3_500_000)
      expect(await vfs.exists('/work/c.bin')).toBe(false)
      await vfs.gc({ keepVersions: 0 })
      await vfs.writeFile('/work/c.bin', mb(5))
      expect(vfs.usage().bytes + (await stored(scope))).toBeLessThanOrEqual(3_500_000)
      await vfs.close()
    })

    it('gc maxBytes drops the oldest versions first, in batches of maxCommits; every version kept still rebuilds', async () => {
      const scope = fresh()
      const vfs = await open(h.store, scope)
      for (let i = 1; i <= 12; i++) await vfs.writeFile('/work/f.txt', `${i}`.repeat(10_000))
      const versions = (await vfs.history()).map(e => e.version)
      const calls: boolean[] = []
      for (;;) {
        const r = await vfs.gc({ maxBytes: 45_000, maxCommits: 2 })
        calls.push(r.more)
        if (!r.more) break
      }
      expect(calls.length).toBeGreaterThan(2)
      expect(await stored(scope)).toBeLessThanOrEqual(45_000)
      const horizon = (await vfs.gc({ maxBytes: 45_000 })).horizon
      expect(horizon).toBeGreaterThan(versions[0])
      for (const [i, v] of versions.entries())
        if (v >= horizon) expect(await vfs.readAt('/work/f.txt', v, 'utf8')).toBe(`${i + 1}`.repeat(10_000))
      // A live branch's base is never dropped, whatever maxBytes says.
      const branch = await vfs.branch({ at: versions.at(-3)! })
      await vfs.writeFile('/work/f.txt', 'later')
      await vfs.gc({ maxBytes: 0 })
      expect(await branch.readFile('/work/f.txt', 'utf8')).toBe('10'.repeat(10_000))
      expect(await vfs.readAt('/work/f.txt', versions.at(-3)!, 'utf8')).toBe('10'.repeat(10_000))
      await branch.discard()
      await vfs.close()
    })
  })
}
