import { runInDurableObject } from 'cloudflare:test'
import { env, exports } from 'cloudflare:workers'
import { describe, expect, it } from 'vitest'
import { durableObjectStore, openVfs, type StoreOp } from '../../src/index.js'
import { describeStoreConformance } from '../conformance/store-suite.js'
import { describeVfsDurability } from '../conformance/vfs-suite.js'
import { describeHistory } from '../conformance/history-suite.js'
import { WorkspaceObject } from '../../worker-edge/src/index.js'
import { storeInsideDurableObject } from './durable-object-harness.js'

describeStoreConformance('durable-object (workerd)', async () => ({ store: storeInsideDurableObject('store-conformance') }))
describeVfsDurability('durable-object (workerd)', async () => ({ store: storeInsideDurableObject('vfs-durability') }))
describeHistory('durable-object (workerd)', async () => ({ store: storeInsideDurableObject('vfs-history') }))

describe('durableObjectStore in the WorkspaceObject', () => {
  it('keeps a workspace written over HTTP for a fresh Vfs on the same storage', async () => {
    const put = await exports.default.fetch(
      new Request('https://edge.test/ws/persist/file/notes/today.md', { method: 'PUT', body: 'remember this' }),
    )
    expect(put.status).toBe(200)
    const stub = env.WORKSPACE.getByName('persist')
    const text = await runInDurableObject(stub, async (instance, state) => {
      expect(instance).toBeInstanceOf(WorkspaceObject)
      // A new store and a new Vfs: nothing shared with the object's memoised workspace but the SQLite file.
      const fresh = await openVfs({
        store: durableObjectStore(state.storage),
        namespace: WorkspaceObject.namespace,
        scope: WorkspaceObject.scope,
        autoRefresh: false,
      })
      return fresh.readFile('/notes/today.md', 'utf8')
    })
    expect(text).toBe('remember this')
  })

  it('rolls back a transaction that SQLite fails after its first writes', async () => {
    const snap = await runInDurableObject(env.WORKSPACE.getByName('late-failure'), async (_instance, state) => {
      const store = durableObjectStore(state.storage)
      const file = (path: string, text: string, expectedVersion: number | null) =>
        ({ op: 'put', path, kind: 'file', data: new TextEncoder().encode(text), mtime: 1, ctime: 1, expectedVersion }) as const
      await store.commit('n', 's', [file('/keep', 'v1', 0), file('/gone', 'v1', 0)])
      // The NULL kind passes the version checks and fails only at its insert, after the other writes ran.
      const late = { ...file('/bad', 'x', null), kind: null } as unknown as StoreOp
      await expect(
        store.commit('n', 's', [{ op: 'delete', path: '/gone', expectedVersion: 1 }, file('/keep', 'v2', 1), late]),
      ).rejects.toThrow(/NOT NULL/)
      return store.load('n', 's')
    })
    expect(snap.version).toBe(1)
    expect(snap.entries.map(e => [e.path, new TextDecoder().decode(e.data)]).sort()).toEqual([
      ['/gone', 'v1'],
      ['/keep', 'v1'],
    ])
  })

  it('stores content in chunk rows of at most 1 MiB, each row under the 2 MB limit', async () => {
    const stub = env.WORKSPACE.getByName('chunks')
    const rows = await runInDurableObject(stub, async (_instance, state) => {
      const store = durableObjectStore(state.storage)
      await store.commit('n', 's', [
        {
          op: 'put',
          path: '/big',
          kind: 'file',
          data: new Uint8Array(2.5 * 1024 * 1024).fill(7),
          mtime: 1,
          ctime: 1,
          expectedVersion: 0,
        },
      ])
      return state.storage.sql
        .exec<{ chunk: number; bytes: number }>("SELECT chunk, length(data) AS bytes FROM vfs_chunks WHERE path = '/big' ORDER BY chunk")
        .toArray()
    })
    expect(rows).toEqual([
      { chunk: 0, bytes: 1048576 },
      { chunk: 1, bytes: 1048576 },
      { chunk: 2, bytes: 524288 },
    ])
  })
})
