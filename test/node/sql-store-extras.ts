import { beforeAll, describe, expect, it } from 'vitest'
import { isVfsError, openVfs, postgresStore, type SqlClient, type StoreOp } from '../../src/index.js'

const put = (path: string, text: string, expectedVersion: number | null = null): StoreOp => ({
  op: 'put',
  path,
  kind: 'file',
  data: new TextEncoder().encode(text),
  mtime: 1_700_000_000_123,
  ctime: 1_700_000_000_000,
  expectedVersion,
})
const text = (d: Uint8Array) => new TextDecoder().decode(d)
let n = 0
const fresh = () => `extra-${Date.now().toString(36)}-${++n}`

/** What postgresStore promises beyond the shared store contract, for any SQL client. */
export function describeSqlStoreExtras(name: string, connect: () => Promise<SqlClient>): void {
  describe(`postgresStore extras: ${name}`, () => {
    let db: SqlClient
    const client = () => db
    beforeAll(async () => {
      db = await connect()
    })

    it('migrate() is idempotent, also when called concurrently', async () => {
      const store = postgresStore({ client: client(), table: 'vfs_migrate_twice' })
      await store.migrate()
      await store.migrate()
      await Promise.all([store.migrate(), store.migrate()])
      const s = fresh()
      expect(await store.commit('ns', s, [put('/a', 'a')])).toBe(1)
      await store.migrate()
      expect((await store.load('ns', s)).entries).toHaveLength(1)
    })

    it('used before migrate(), every operation says to call migrate(), not a raw driver error', async () => {
      const store = postgresStore({ client: client(), table: `never_migrated_${Date.now().toString(36)}_${n++}` })
      const s = fresh()
      const attempts: Array<[string, () => Promise<unknown>]> = [
        ['load', () => store.load('ns', s)],
        ['commit', () => store.commit('ns', s, [put('/a', 'a')])],
        ['listScopes', () => store.listScopes('ns')],
        ['deleteScope', () => store.deleteScope('ns', s)],
        ['openVfs', () => openVfs({ store, namespace: 'ns', scope: s })],
      ]
      for (const [what, attempt] of attempts) {
        const error = await attempt().then(
          () => undefined,
          (e: unknown) => e,
        )
        expect(isVfsError(error, 'ESTORE'), what).toBe(true)
        expect((error as Error).message, what).toMatch(/never_migrated_\w+_(scopes|entries).*call migrate\(\) once/)
        expect((error as Error & { cause?: { code?: string } }).cause?.code, what).toBe('42P01')
      }
      // After migrate() the same store works.
      await store.migrate()
      expect(await store.commit('ns', s, [put('/a', 'a')])).toBe(1)
    })

    it('a custom table name works and is isolated from the default tables', async () => {
      const custom = postgresStore({ client: client(), table: 'Custom_Vfs_2' })
      const plain = postgresStore({ client: client() })
      await custom.migrate()
      await plain.migrate()
      const s = fresh()
      await custom.commit('ns', s, [put('/only-in-custom', 'x')])
      expect(await plain.load('ns', s)).toEqual({ version: 0, entries: [] })
      expect(await plain.listScopes('ns')).not.toContain(s)
      expect(await custom.listScopes('ns')).toContain(s)
      const { rows } = await client().query(
        `SELECT table_name FROM information_schema.tables WHERE table_name LIKE 'Custom_Vfs_2%' ORDER BY 1`,
      )
      expect(rows).toEqual([
        { table_name: 'Custom_Vfs_2_blobs' },
        { table_name: 'Custom_Vfs_2_changes' },
        { table_name: 'Custom_Vfs_2_entries' },
        { table_name: 'Custom_Vfs_2_scopes' },
      ])
    })

    it('refuses a table name that is not a plain identifier', () => {
      for (const table of ['x; DROP TABLE y', 'a"b', '1abc', '', 'a.b', 'x'.repeat(49)]) {
        expect(() => postgresStore({ client: client(), table }), table).toThrow(/EINVAL/)
      }
      expect(() => postgresStore({ client: {} as SqlClient })).toThrow(/EINVAL/)
    })

    it('stores SQL-looking namespaces, scopes and paths literally', async () => {
      const store = postgresStore({ client: client() })
      await store.migrate()
      const ns = `ns'); DROP TABLE agent_vfs_entries; -- ${fresh()}`
      const scope = `s" OR 1=1 --`
      const paths = [`/'; DELETE FROM agent_vfs_scopes; --`, '/$1::text', '/\\x00ff', '/%_like_%', '/a"b\'c']
      await store.commit(
        ns,
        scope,
        paths.map(p => put(p, p)),
      )
      await store.commit(ns, scope, [{ op: 'delete', path: '/%_like_%', expectedVersion: 1 }, put('/$1::text', 'v2', 1)])
      const snap = await store.load(ns, scope)
      expect(snap.version).toBe(2)
      expect(Object.fromEntries(snap.entries.map(e => [e.path, text(e.data)]))).toEqual({
        [paths[0]]: paths[0],
        '/$1::text': 'v2',
        '/\\x00ff': '/\\x00ff',
        '/a"b\'c': '/a"b\'c',
      })
      expect(await store.listScopes(ns)).toEqual([scope])
      expect(await store.listScopes('%')).toEqual([])
      await store.deleteScope(ns, '%')
      expect((await store.load(ns, scope)).entries).toHaveLength(4)
    })

    it('hands out plain Uint8Arrays and numbers, whatever the driver returns', async () => {
      const store = postgresStore({ client: client() })
      await store.migrate()
      const s = fresh()
      for (let i = 0; i < 3; i++) await store.commit('ns', s, [put('/f', `v${i}`)])
      const snap = await store.load('ns', s)
      const [e] = snap.entries
      expect(snap.version).toBe(3)
      expect(e.data.constructor).toBe(Uint8Array)
      expect(e).toMatchObject({ version: 3, mtime: 1_700_000_000_123, ctime: 1_700_000_000_000 })
      expect(text(e.data)).toBe('v2')
    })

    it('commits a batch larger than one statement holds (65,535 parameters)', async () => {
      const store = postgresStore({ client: client() })
      await store.migrate()
      const s = fresh()
      const ops = Array.from({ length: 12_345 }, (_, i) => put(`/big-batch/${i}`, `${i}`, 0))
      expect(await store.commit('ns', s, ops)).toBe(1)
      const snap = await store.load('ns', s)
      expect(snap.entries).toHaveLength(12_345)
      expect(text(snap.entries.find(e => e.path === '/big-batch/12344')!.data)).toBe('12344')
    })

    it('serialises many concurrent commits on one scope into distinct versions', async () => {
      const store = postgresStore({ client: client() })
      await store.migrate()
      const s = fresh()
      const versions = await Promise.all(Array.from({ length: 20 }, (_, i) => store.commit('ns', s, [put(`/c/${i}`, `${i}`)])))
      expect([...versions].sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1))
      const snap = await store.load('ns', s)
      expect(snap.version).toBe(20)
      expect(snap.entries).toHaveLength(20)
    })

    it('two workspaces on one scope: the stale writer gets ECONFLICT, nothing is overwritten', async () => {
      const s = fresh()
      const storeA = postgresStore({ client: client() })
      const storeB = postgresStore({ client: client() })
      await storeA.migrate()
      const a = await openVfs({ store: storeA, namespace: 'two', scope: s, autoRefresh: false })
      await a.writeFile('/plan.md', 'v1 by a')
      const b = await openVfs({ store: storeB, namespace: 'two', scope: s, autoRefresh: false })
      await b.writeFile('/plan.md', 'v2 by b')
      const errors = await Promise.all([a.writeFile('/plan.md', 'stale a'), a.deleteFile('/plan.md')].map(p => p.catch(e => e)))
      for (const e of errors) expect(isVfsError(e, 'ECONFLICT'), String(e)).toBe(true)
      const c = await openVfs({ store: storeA, namespace: 'two', scope: s, autoRefresh: false })
      expect(await c.readFile('/plan.md', 'utf8')).toBe('v2 by b')
      await a.refresh()
      await a.writeFile('/plan.md', 'v3 by a')
      expect(isVfsError(await b.writeFile('/plan.md', 'stale b').catch(e => e), 'ECONFLICT')).toBe(true)
    })
  })
}
