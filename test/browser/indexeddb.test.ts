import { deleteDB } from 'idb'
import { afterAll, describe, expect, it } from 'vitest'
import { indexedDbStore, isVfsError, openVfs, type StoreOp, type Vfs, type VfsChange, type VfsStore } from '../../src/index.js'
import { poisoned } from '../conformance/failing-store.js'
import { bytesOf } from '../conformance/samples.js'
import { describeStoreConformance } from '../conformance/store-suite.js'
import { describeVfsDurability } from '../conformance/vfs-suite.js'
import { describeHistory } from '../conformance/history-suite.js'

const uniqueDbName = (what: string) => `agent-vfs-test-${what}-${crypto.randomUUID()}`

/** A store on a fresh database; cleanup closes it and deletes the database. */
async function harness(what: string) {
  const dbName = uniqueDbName(what)
  const store = indexedDbStore({ dbName })
  return {
    store,
    cleanup: async () => {
      await store.close?.()
      await deleteDB(dbName)
    },
  }
}

describeStoreConformance('indexeddb', () => harness('conformance'))
describeVfsDurability('indexeddb', () => harness('durability'))
describeHistory('indexeddb', () => harness('history'))

const put = (path: string, text: string, expectedVersion: number | null = null): StoreOp => ({
  op: 'put',
  path,
  kind: 'file',
  data: bytesOf(text),
  mtime: 1,
  ctime: 1,
  expectedVersion,
})
const text = (data: Uint8Array) => new TextDecoder().decode(data)

/** Resolves with the next change of `type`; fails the test if none comes within `ms`. */
function nextChange(vfs: Vfs, type: VfsChange['type'], ms = 5000): Promise<VfsChange> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => (off(), reject(new Error(`no '${type}' event within ${ms} ms`))), ms)
    const off = vfs.onChange(change => {
      if (change.type !== type) return
      clearTimeout(timer)
      off()
      resolve(change)
    })
  })
}

describe('indexedDbStore: two tabs on one database', () => {
  const dbName = uniqueDbName('tabs')
  // Two store objects are two connections and two BroadcastChannels: what two tabs would have.
  const tabA = indexedDbStore({ dbName })
  const tabB = indexedDbStore({ dbName })
  const stores: VfsStore[] = [tabA, tabB]
  let n = 0
  const fresh = () => `scope-${++n}`
  afterAll(async () => {
    for (const s of stores) await s.close?.()
    await deleteDB(dbName)
  })

  it("shows A's write in B without refresh(), and A does not refresh for its own commits", async () => {
    const scope = fresh()
    const a = await openVfs({ store: tabA, namespace: 'ns', scope })
    const b = await openVfs({ store: tabB, namespace: 'ns', scope })
    const seenByA: VfsChange['type'][] = []
    a.onChange(c => seenByA.push(c.type))
    const refreshed = nextChange(b, 'refreshed')
    await a.writeFile('/notes/today.md', 'written in tab A')
    expect(await refreshed).toEqual({ type: 'refreshed', version: 1 })
    expect(await b.readFile('/notes/today.md', 'utf8')).toBe('written in tab A')
    // And back: B's write reaches A, and B's own commit does not make B reload.
    const seenByB: VfsChange['type'][] = []
    b.onChange(c => seenByB.push(c.type))
    const refreshedA = nextChange(a, 'refreshed')
    await b.writeFile('/notes/today.md', 'edited in tab B')
    await refreshedA
    expect(await a.readFile('/notes/today.md', 'utf8')).toBe('edited in tab B')
    await new Promise(r => setTimeout(r, 50)) // give a stray self-notification time to show up
    expect(seenByA).toEqual(['commit', 'external', 'refreshed'])
    expect(seenByB).toEqual(['commit'])
    await Promise.all([a.close(), b.close()])
  })

  it('also refreshes a second workspace over the same store object', async () => {
    const scope = fresh()
    const writer = await openVfs({ store: tabA, namespace: 'ns', scope })
    const reader = await openVfs({ store: tabA, namespace: 'ns', scope })
    const refreshed = nextChange(reader, 'refreshed')
    await writer.writeFile('/x.txt', 'same tab')
    await refreshed
    expect(await reader.readFile('/x.txt', 'utf8')).toBe('same tab')
  })

  it('gives a stale writer in the other tab ECONFLICT from the store, and keeps the winner', async () => {
    const scope = fresh()
    const a = await openVfs({ store: tabA, namespace: 'ns', scope })
    await a.writeFile('/plan.json', '{"v":1}')
    const b = await openVfs({ store: tabB, namespace: 'ns', scope, autoRefresh: false })
    await a.writeFile('/plan.json', '{"v":2}') // B still believes version 1
    const error = await b.writeFile('/plan.json', '{"v":"stale"}').catch(e => e)
    expect(isVfsError(error, 'ECONFLICT'), String(error)).toBe(true)
    expect(error.path).toBe('/plan.json')
    const snap = await tabB.load('ns', scope)
    expect(snap.version).toBe(2)
    expect(text(snap.entries.find(e => e.path === '/plan.json')!.data)).toBe('{"v":2}')
  })

  it('lets exactly one of two tabs win a race on the same expected version', async () => {
    const scope = fresh()
    await tabA.commit('ns', scope, [put('/x', 'base')])
    for (let round = 1; round <= 5; round++) {
      const results = await Promise.allSettled([
        tabA.commit('ns', scope, [put('/x', `a${round}`, round)]),
        tabB.commit('ns', scope, [put('/x', `b${round}`, round)]),
      ])
      expect(results.filter(r => r.status === 'fulfilled')).toHaveLength(1)
      const lost = results.find(r => r.status === 'rejected') as PromiseRejectedResult
      expect(isVfsError(lost.reason, 'ECONFLICT'), String(lost.reason)).toBe(true)
    }
    expect((await tabB.load('ns', scope)).version).toBe(6)
  })

  it('aborts the transaction when an op fails after writes were issued', async () => {
    const scope = fresh()
    await tabA.commit('ns', scope, [put('/keep', 'v1')])
    // Unchecked ops skip the version reads, so the failure comes after ten puts are in the transaction.
    const ops = Array.from({ length: 10 }, (_, i) => put(`/new/${i}`, `n${i}`))
    ops.push(poisoned(put('/bad', 'x'), 1), put('/keep', 'v2'))
    await expect(tabA.commit('ns', scope, ops)).rejects.toThrow(/injected/)
    const snap = await tabB.load('ns', scope)
    expect(snap.version).toBe(1)
    expect(snap.entries.map(e => [e.path, text(e.data)])).toEqual([['/keep', 'v1']])
  })

  it('lists and deletes scopes, as seen from the other tab', async () => {
    const ns = `list-${crypto.randomUUID()}`
    await tabA.commit(ns, 'b', [put('/f', 'b')])
    await tabA.commit(ns, 'a', [put('/f', 'a')])
    await tabA.commit(ns, 'a/child', [put('/f', 'child')])
    await tabA.commit(ns + '-other', 'z', [put('/f', 'z')])
    expect(await tabB.listScopes(ns)).toEqual(['a', 'a/child', 'b'])
    await tabB.deleteScope(ns, 'a')
    expect(await tabA.listScopes(ns)).toEqual(['a/child', 'b'])
    expect(await tabA.load(ns, 'a')).toEqual({ version: 1, entries: [] }) // the version stays: versions never repeat
    expect(text((await tabA.load(ns, 'a/child')).entries[0].data)).toBe('child')
    expect(await tabA.listScopes(ns + '-other')).toEqual(['z'])
  })

  it('stores only the bytes of a view, not the whole buffer behind it', async () => {
    const scope = fresh()
    const buffer = new Uint8Array(1024 * 1024).fill(7)
    await tabA.commit('ns', scope, [
      { op: 'put', path: '/slice', kind: 'file', data: buffer.subarray(100, 110), mtime: 1, ctime: 1, expectedVersion: 0 },
    ])
    const [entry] = (await tabB.load('ns', scope)).entries
    expect(entry.data.length).toBe(10)
    expect(entry.data.buffer.byteLength).toBe(10)
  })
})

describe('indexedDbStore: lifetime', () => {
  it('keeps data across closing and reopening the store', async () => {
    const dbName = uniqueDbName('reopen')
    const first = indexedDbStore({ dbName })
    const vfs = await openVfs({ store: first, namespace: 'ns', scope: 's' })
    await vfs.writeFile('/work/a.bin', Uint8Array.of(0, 255, 1))
    await vfs.mkdir('/empty')
    await vfs.close()
    await first.close!()
    expect(isVfsError(await first.load('ns', 's').catch(e => e), 'ECLOSED')).toBe(true)
    const second = indexedDbStore({ dbName })
    const again = await openVfs({ store: second, namespace: 'ns', scope: 's' })
    expect(Array.from(await again.readFile('/work/a.bin'))).toEqual([0, 255, 1])
    expect((await again.stat('/empty')).type).toBe('directory')
    expect((await again.stat('/work/a.bin')).version).toBe(1)
    await again.close()
    await second.close!()
    await deleteDB(dbName)
  })

  it('steps aside when another tab deletes or upgrades the database, then reopens', async () => {
    const dbName = uniqueDbName('versionchange')
    const store = indexedDbStore({ dbName })
    await store.commit('ns', 's', [put('/f', 'x')])
    // deleteDB waits for every open connection to close; ours must close on 'versionchange'.
    const deleted = await Promise.race([deleteDB(dbName).then(() => true), new Promise(r => setTimeout(() => r(false), 3000))])
    expect(deleted).toBe(true)
    expect(await store.load('ns', 's')).toEqual({ version: 0, entries: [] })
    expect(await store.commit('ns', 's', [put('/f', 'y', 0)])).toBe(1)
    await store.close!()
    await deleteDB(dbName)
  })
})
