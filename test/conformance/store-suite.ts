import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { isVfsError, type StoreOp, type VfsStore } from '../../src/index.js'
import { loadScopes, type Expectation } from '../../src/contract/store.js'
import { poisoned } from './failing-store.js'
import { binarySamples, bytesOf, bigFile } from './samples.js'

export interface StoreHarness {
  store: VfsStore
  /** Called once after the suite. */
  cleanup?: () => Promise<void>
}

const put = (path: string, data: Uint8Array | string, expectedVersion: Expectation = null, expectedBelow?: number): StoreOp => ({
  op: 'put',
  path,
  kind: 'file',
  data: typeof data === 'string' ? bytesOf(data) : data,
  mtime: 1000,
  ctime: 500,
  expectedVersion,
  ...(expectedBelow === undefined ? {} : { expectedBelow }),
})

const dir = (path: string, expectedVersion: Expectation = null): StoreOp => ({
  op: 'put',
  path,
  kind: 'dir',
  data: new Uint8Array(),
  mtime: 1,
  ctime: 1,
  expectedVersion,
})

/**
 * The contract every adapter must meet, run in the runtime the adapter is for. Each test uses its
 * own scope, so one store instance serves the whole suite.
 */
export function describeStoreConformance(name: string, setup: () => Promise<StoreHarness>): void {
  describe(`store conformance: ${name}`, () => {
    let h: StoreHarness
    let n = 0
    const ns = 'conformance'
    const fresh = () => `scope-${Date.now().toString(36)}-${++n}`

    beforeAll(async () => {
      h = await setup()
    })
    afterAll(async () => {
      await h?.cleanup?.()
    })

    it('loads an unknown scope as empty, version 0', async () => {
      expect(await h.store.load(ns, fresh())).toEqual({ version: 0, entries: [] })
    })

    it('loads several scopes at once exactly as one load each, in the order asked (loadScopes, loadMany when the store has it)', async () => {
      const [a, b, gone, unknown] = [fresh(), fresh(), fresh(), fresh()]
      await h.store.commit(ns, a, [put('/x.txt', 'ax'), put('/y.txt', 'ay')])
      await h.store.commit(ns, a, [put('/x.txt', 'ax2', 1)])
      await h.store.commit(ns, b, [dir('/d'), put('/d/z.txt', 'bz')])
      await h.store.commit(ns, gone, [put('/g.txt', 'g')])
      await h.store.deleteScope(ns, gone)
      const sorted = (snap: { version: number; entries: { path: string }[] }) => ({
        ...snap,
        entries: [...snap.entries].sort((p, q) => p.path.localeCompare(q.path)),
      })
      const asked = [b, unknown, a, gone, a]
      const many = await loadScopes(h.store, ns, asked)
      expect(many.map(sorted)).toEqual(await Promise.all(asked.map(async s => sorted(await h.store.load(ns, s)))))
      expect(many.map(s => s.version)).toEqual([1, 0, 2, 1, 2])
      expect(many[1].entries).toEqual([])
      expect(many[3].entries).toEqual([])
      expect(new TextDecoder().decode(many[2].entries.find(e => e.path === '/x.txt')!.data)).toBe('ax2')
      // Another namespace's scope of the same name stays out.
      expect((await loadScopes(h.store, ns + '-other', [a]))[0]).toEqual({ version: 0, entries: [] })
      expect(await loadScopes(h.store, ns, [])).toEqual([])
    })

    it('commits a batch atomically and stamps the new scope version', async () => {
      const s = fresh()
      expect(
        await h.store.commit(ns, s, [
          put('/a.txt', 'one'),
          { op: 'put', path: '/d', kind: 'dir', data: new Uint8Array(), mtime: 1, ctime: 1, expectedVersion: null },
        ]),
      ).toBe(1)
      expect(await h.store.commit(ns, s, [put('/b.txt', 'two', 0)])).toBe(2)
      const snap = await h.store.load(ns, s)
      expect(snap.version).toBe(2)
      const byPath = Object.fromEntries(snap.entries.map(e => [e.path, e]))
      expect(Object.keys(byPath).sort()).toEqual(['/a.txt', '/b.txt', '/d'])
      expect(byPath['/a.txt']).toMatchObject({ kind: 'file', version: 1, mtime: 1000, ctime: 500 })
      expect(new TextDecoder().decode(byPath['/a.txt'].data)).toBe('one')
      expect(byPath['/b.txt'].version).toBe(2)
      expect(byPath['/d']).toMatchObject({ kind: 'dir', version: 1 })
      expect(byPath['/d'].data.length).toBe(0)
    })

    it('round-trips bytes exactly: binary, NUL, empty, multi-byte and invalid UTF-8', async () => {
      const s = fresh()
      const samples = binarySamples()
      await h.store.commit(
        ns,
        s,
        Object.entries(samples).map(([p, d]) => put(p, d)),
      )
      const snap = await h.store.load(ns, s)
      for (const [p, d] of Object.entries(samples)) {
        const e = snap.entries.find(x => x.path === p)
        expect(e, p).toBeDefined()
        expect(e!.data).toBeInstanceOf(Uint8Array)
        expect(Array.from(e!.data), p).toEqual(Array.from(d))
      }
    })

    it('keeps awkward but valid path names intact', async () => {
      const s = fresh()
      const paths = [
        '/with space/it\'s "quoted".md',
        '/ünïcødé/日本語.txt',
        '/emoji/🙂.md',
        '/pct/%2e%2e/x',
        "/sql/'; drop table x; --",
        '/a'.repeat(100),
      ]
      await h.store.commit(
        ns,
        s,
        paths.map(p => put(p, p)),
      )
      const snap = await h.store.load(ns, s)
      expect(snap.entries.map(e => e.path).sort()).toEqual([...paths].sort())
    })

    it('refuses a batch whose expected version does not match, and writes none of it', async () => {
      const s = fresh()
      await h.store.commit(ns, s, [put('/a', 'v1')])
      const attempts: StoreOp[][] = [
        [put('/b', 'new'), put('/a', 'stale', 7)],
        [put('/a', 'exists', 0)],
        [put('/b', 'new'), { op: 'delete', path: '/a', expectedVersion: 3 }],
        [{ op: 'delete', path: '/missing', expectedVersion: 1 }],
      ]
      for (const ops of attempts) {
        const error = await h.store.commit(ns, s, ops).catch(e => e)
        expect(isVfsError(error, 'ECONFLICT'), String(error)).toBe(true)
      }
      const snap = await h.store.load(ns, s)
      expect(snap.version).toBe(1)
      expect(snap.entries.map(e => e.path)).toEqual(['/a'])
      expect(await h.store.commit(ns, s, [put('/a', 'v2', 1), put('/b', 'b', 0)])).toBe(2)
      expect(
        await h.store.commit(ns, s, [
          { op: 'delete', path: '/a', expectedVersion: 2 },
          { op: 'delete', path: '/gone', expectedVersion: null },
        ]),
      ).toBe(3)
      expect((await h.store.load(ns, s)).entries.map(e => e.path)).toEqual(['/b'])
    })

    it('lets exactly one of two concurrent commits with the same expectation win', async () => {
      const s = fresh()
      await h.store.commit(ns, s, [put('/x', 'base')])
      const results = await Promise.allSettled([
        h.store.commit(ns, s, [put('/x', 'left', 1)]),
        h.store.commit(ns, s, [put('/x', 'right', 1)]),
      ])
      expect(results.filter(r => r.status === 'fulfilled')).toHaveLength(1)
      const rejected = results.find(r => r.status === 'rejected') as PromiseRejectedResult
      expect(isVfsError(rejected.reason, 'ECONFLICT'), String(rejected.reason)).toBe(true)
    })

    it('rolls back a batch that fails part-way', async () => {
      const s = fresh()
      await h.store.commit(ns, s, [put('/keep', 'v1'), put('/gone', 'v1')])
      const ops: StoreOp[] = [
        { op: 'delete', path: '/gone', expectedVersion: 1 },
        put('/keep', 'v2', 1),
        ...Array.from({ length: 20 }, (_, i) => put(`/new/${i}`, `n${i}`, 0)),
      ]
      ops[15] = poisoned(ops[15], 99)
      await expect(h.store.commit(ns, s, ops)).rejects.toThrow(/injected/)
      const snap = await h.store.load(ns, s)
      expect(snap.version).toBe(1)
      expect(snap.entries.map(e => [e.path, new TextDecoder().decode(e.data)]).sort()).toEqual([
        ['/gone', 'v1'],
        ['/keep', 'v1'],
      ])
      expect(await h.store.commit(ns, s, [put('/keep', 'v2', 1)])).toBe(2)
    })

    it('keeps namespaces and scopes apart, lists and deletes scopes', async () => {
      const s = fresh()
      await h.store.commit(ns, s, [put('/f', 'mine')])
      await h.store.commit('other-ns', s, [put('/f', 'theirs')])
      await h.store.commit(ns, s + '-b', [put('/g', 'b')])
      expect(await h.store.listScopes(ns)).toEqual(expect.arrayContaining([s, s + '-b']))
      expect(await h.store.listScopes('other-ns')).toContain(s)
      await h.store.deleteScope(ns, s)
      expect((await h.store.load(ns, s)).entries).toEqual([])
      expect(await h.store.listScopes(ns)).not.toContain(s)
      expect(new TextDecoder().decode((await h.store.load('other-ns', s)).entries[0].data)).toBe('theirs')
      expect((await h.store.load(ns, s + '-b')).entries).toHaveLength(1)
    })

    it('never repeats a version for a scope name, across deleteScope and recreation', async () => {
      const s = fresh()
      await h.store.commit(ns, s, [put('/a', 'v1', 0)])
      await h.store.commit(ns, s, [put('/a', 'v2', 1)])
      await h.store.deleteScope(ns, s)
      const deleted = await h.store.load(ns, s)
      expect(deleted).toEqual({ version: 2, entries: [] })
      expect(await h.store.listScopes(ns)).not.toContain(s)
      // A writer that saw /a at version 1 before the scope was deleted must not match the new /a.
      expect(await h.store.commit(ns, s, [put('/a', 'recreated', 0)])).toBe(3)
      expect(isVfsError(await h.store.commit(ns, s, [put('/a', 'stale', 1)]).catch(e => e), 'ECONFLICT')).toBe(true)
      expect(await h.store.listScopes(ns)).toContain(s)
      await h.store.deleteScope(ns, s)
      await h.store.deleteScope(ns, s)
      expect(await h.store.commit(ns, s, [put('/b', 'b', 0)])).toBe(4)
      expect((await h.store.load(ns, s)).entries.map(e => [e.path, e.version])).toEqual([['/b', 4]])
    })

    it('checks versions of check ops and writes nothing for them', async () => {
      const s = fresh()
      await h.store.commit(ns, s, [dir('/d', 0), put('/d/f', 'f', 0)])
      const stale = await h.store.commit(ns, s, [{ op: 'check', path: '/d', expectedVersion: 7 }, put('/d/g', 'g', 0)]).catch(e => e)
      expect(isVfsError(stale, 'ECONFLICT'), String(stale)).toBe(true)
      expect(stale.path).toBe('/d')
      const absent = await h.store.commit(ns, s, [{ op: 'check', path: '/nope', expectedVersion: 1 }, put('/x', 'x', 0)]).catch(e => e)
      expect(isVfsError(absent, 'ECONFLICT'), String(absent)).toBe(true)
      expect(
        await h.store.commit(ns, s, [
          { op: 'check', path: '/d', expectedVersion: 1 },
          { op: 'check', path: '/nope', expectedVersion: 0 },
          put('/d/g', 'g', 0),
        ]),
      ).toBe(2)
      const snap = await h.store.load(ns, s)
      expect(snap.entries.map(e => [e.path, e.version]).sort()).toEqual([
        ['/d', 1],
        ['/d/f', 1],
        ['/d/g', 2],
      ])
    })

    it("expects directories by kind: 'dir' needs a directory, a directory put expecting 0 accepts one", async () => {
      const s = fresh()
      await h.store.commit(ns, s, [dir('/d', 0), put('/f', 'f', 0)])
      // Two writers creating one directory do not conflict; a directory put never replaces a file.
      expect(await h.store.commit(ns, s, [dir('/d', 0), put('/d/x', 'x', 0)])).toBe(2)
      const overFile = await h.store.commit(ns, s, [dir('/f', 0), put('/f/x', 'x', 0)]).catch(e => e)
      expect(isVfsError(overFile, 'ECONFLICT'), String(overFile)).toBe(true)
      expect(overFile.path).toBe('/f')
      for (const ops of [
        [{ op: 'check', path: '/f', expectedVersion: 'dir' }, put('/f2', 'y', 0)],
        [{ op: 'check', path: '/missing', expectedVersion: 'dir' }, put('/missing/y', 'y', 0)],
        [{ op: 'delete', path: '/f', expectedVersion: 'dir' }],
        [put('/f', 'file over a file', 'dir')],
      ] as StoreOp[][]) {
        const error = await h.store.commit(ns, s, ops).catch(e => e)
        expect(isVfsError(error, 'ECONFLICT'), `${JSON.stringify(ops.map(o => [o.op, o.path]))}: ${error}`).toBe(true)
      }
      expect(await h.store.commit(ns, s, [{ op: 'check', path: '/d', expectedVersion: 'dir' }, put('/d/y', 'y', 0)])).toBe(3)
      expect(
        await h.store.commit(ns, s, [
          put('/d', 'a file replacing a directory', 'dir', 2),
          { op: 'delete', path: '/d/x', expectedVersion: 2 },
          { op: 'delete', path: '/d/y', expectedVersion: 3 },
        ]),
      ).toBe(4)
      const snap = await h.store.load(ns, s)
      expect(snap.entries.map(e => [e.path, e.kind, e.version]).sort()).toEqual([
        ['/d', 'file', 4],
        ['/f', 'file', 1],
      ])
    })

    it('counts the entries strictly below a directory for expectedBelow, and nothing else', async () => {
      const s = fresh()
      // Neighbours that share the prefix or sort next to '/d/' must not count: '.' < '/' < '0'.
      const around = ['/d.txt', '/d-x/y', '/d0', '/d0/z', '/dd', '/c/d/x']
      const below = ['/d/a', '/d/sub', '/d/sub/b', '/d/\uffff', '/d/🙂', '/d/é']
      await h.store.commit(ns, s, [dir('/d', 0), ...[...around, ...below].map(p => put(p, p, 0))])
      const removeAll = (expectedBelow: number): StoreOp[] => [
        { op: 'delete', path: '/d', expectedVersion: 'dir', expectedBelow },
        ...below.map((p): StoreOp => ({ op: 'delete', path: p, expectedVersion: 1 })),
      ]
      for (const wrong of [below.length - 1, below.length + 1, 0]) {
        const error = await h.store.commit(ns, s, removeAll(wrong)).catch(e => e)
        expect(isVfsError(error, 'ECONFLICT'), `${wrong}: ${error}`).toBe(true)
        expect(error.path).toBe('/d')
      }
      expect((await h.store.load(ns, s)).version).toBe(1)
      // A writer that missed one entry below /d names too few: the store has one more.
      const missed = removeAll(below.length).filter(op => op.path !== '/d/sub/b')
      missed[0] = { ...missed[0], expectedBelow: below.length - 1 }
      expect(isVfsError(await h.store.commit(ns, s, missed).catch(e => e), 'ECONFLICT')).toBe(true)
      expect(await h.store.commit(ns, s, removeAll(below.length))).toBe(2)
      expect((await h.store.load(ns, s)).entries.map(e => e.path).sort()).toEqual([...around].sort())
      // On a check op too, and on a path with nothing below.
      expect(
        await h.store.commit(ns, s, [
          { op: 'check', path: '/d0', expectedVersion: 1, expectedBelow: 1 },
          { op: 'check', path: '/gone', expectedVersion: 0, expectedBelow: 0 },
          put('/n', 'n', 0),
        ]),
      ).toBe(3)
      expect(
        isVfsError(
          await h.store.commit(ns, s, [{ op: 'check', path: '/c', expectedVersion: 0, expectedBelow: 2 }]).catch(e => e),
          'ECONFLICT',
        ),
      ).toBe(true)
    })

    it('commits a batch of 1,000 operations', async () => {
      const s = fresh()
      const ops = Array.from({ length: 1000 }, (_, i) => put(`/many/${String(i).padStart(4, '0')}.txt`, `file ${i}`, 0))
      expect(await h.store.commit(ns, s, ops)).toBe(1)
      const snap = await h.store.load(ns, s)
      expect(snap.entries).toHaveLength(1000)
      expect(new TextDecoder().decode(snap.entries.find(e => e.path === '/many/0999.txt')!.data)).toBe('file 999')
    })

    it('round-trips a 10 MB file, and replaces it with a small one', async () => {
      const s = fresh()
      const big = bigFile(10 * 1024 * 1024)
      await h.store.commit(ns, s, [put('/big.bin', big)])
      const e = (await h.store.load(ns, s)).entries.find(x => x.path === '/big.bin')!
      expect(e.data.length).toBe(big.length)
      expect(sameBytes(e.data, big)).toBe(true)
      await h.store.commit(ns, s, [put('/big.bin', 'small', 1)])
      const after = await h.store.load(ns, s)
      expect(after.entries).toHaveLength(1)
      expect(new TextDecoder().decode(after.entries[0].data)).toBe('small')
    }, 120_000)
  })
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false
  return true
}
