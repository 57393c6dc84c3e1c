import { env } from 'cloudflare:workers'
import { describe, expect, it } from 'vitest'
import { d1Store, isVfsError, type StoreOp } from '../../src/index.js'
import { D1_SCHEMA } from '../../adapters/d1.js'
import { D1_HISTORY_SCHEMA } from '../../adapters/d1-history.js'
import { describeHistory } from '../conformance/history-suite.js'
import { describeStoreConformance } from '../conformance/store-suite.js'
import { describeVfsDurability } from '../conformance/vfs-suite.js'

// env.DB is the local D1 of wrangler.toml; apply-migrations.ts has applied worker-edge/migrations.
describeStoreConformance('d1 (workerd)', async () => ({ store: d1Store(env.DB) }))
describeVfsDurability('d1 (workerd)', async () => ({ store: d1Store(env.DB) }))
describeHistory('d1 (workerd)', async () => ({ store: d1Store(env.DB) }))

const put = (path: string, text: string, expectedVersion: number | null): StoreOp => ({
  op: 'put',
  path,
  kind: 'file',
  data: new TextEncoder().encode(text),
  mtime: 1,
  ctime: 1,
  expectedVersion,
})

describe('d1Store specifics', () => {
  it('runs the same DDL as the migration file, and migrate() is idempotent', async () => {
    // The workers vitest plugin's readD1Migrations keeps a file's leading comments in its first statement.
    const normalise = (sql: string) =>
      sql
        .replace(/^\s*--[^\n]*$/gm, '')
        .replace(/\s+/g, ' ')
        .replace(/;\s*$/, '')
        .trim()
    // 0001 is the store's; later migrations are the session index's (agent-vfs/worker).
    const fromFile = env.TEST_MIGRATIONS.filter(m => m.name.startsWith('0001_'))
      .flatMap(m => m.queries)
      .map(normalise)
    expect(fromFile).toEqual(D1_SCHEMA.map(normalise))
    const historyFromFile = env.TEST_MIGRATIONS.filter(m => m.name.startsWith('0005_'))
      .flatMap(m => m.queries)
      .map(normalise)
    expect(historyFromFile).toEqual(D1_HISTORY_SCHEMA.map(normalise))
    const store = d1Store(env.DB)
    await store.migrate()
    await store.migrate()
  })

  it('names the conflicting path, even in a batch past the 100-parameter limit', async () => {
    const store = d1Store(env.DB)
    const ops = Array.from({ length: 300 }, (_, i) => put(`/p/${i}`, `v${i}`, 0))
    expect(await store.commit('specifics', 'wide', ops)).toBe(1)
    const stale = ops.map((op, i) => ({ ...op, expectedVersion: i === 250 ? 7 : 1 }))
    const error = await store.commit('specifics', 'wide', stale).catch(e => e)
    expect(isVfsError(error, 'ECONFLICT')).toBe(true)
    expect(error.path).toBe('/p/250')
    expect(error.message).toContain('expected version 7, the store has version 1')
    expect((await store.load('specifics', 'wide')).version).toBe(1)
    // The guard rows never outlive a batch.
    expect(await env.DB.prepare('SELECT count(*) AS n FROM vfs_guard').first('n')).toBe(0)
  })

  it('cuts content into 512 KiB chunks (1 MiB of hex per bound value)', async () => {
    const store = d1Store(env.DB)
    const data = new Uint8Array(1.25 * 1024 * 1024).map((_, i) => i * 7)
    await store.commit('specifics', 'chunks', [{ op: 'put', path: '/b', kind: 'file', data, mtime: 1, ctime: 1, expectedVersion: 0 }])
    const { results } = await env.DB.prepare(
      "SELECT chunk, length(data) AS bytes, typeof(data) AS type FROM vfs_chunks WHERE scope = 'chunks' ORDER BY chunk",
    ).all()
    expect(results).toEqual([0, 1, 2].map(chunk => ({ chunk, bytes: chunk < 2 ? 524288 : 262144, type: 'blob' })))
  })

  it('rolls back a batch that the database fails after its first writes', async () => {
    const store = d1Store(env.DB)
    await store.commit('specifics', 'late', [put('/keep', 'v1', 0), put('/gone', 'v1', 0)])
    // The NULL kind passes planning and fails only at the entry insert, after the bump and the deletes ran.
    const late = { ...put('/bad', 'x', null), kind: null } as unknown as StoreOp
    const error = await store
      .commit('specifics', 'late', [{ op: 'delete', path: '/gone', expectedVersion: 1 }, put('/keep', 'v2', 1), late])
      .catch(e => e)
    expect(String(error)).toMatch(/NOT NULL/)
    const snap = await store.load('specifics', 'late')
    expect(snap.version).toBe(1)
    expect(snap.entries.map(e => [e.path, new TextDecoder().decode(e.data)]).sort()).toEqual([
      ['/gone', 'v1'],
      ['/keep', 'v1'],
    ])
  })

  it('creates its own tables when the migration was never applied', async () => {
    await env.DB.batch(['vfs_chunks', 'vfs_entries', 'vfs_scopes', 'vfs_guard'].map(t => env.DB.prepare(`DROP TABLE ${t}`)))
    const store = d1Store(env.DB)
    expect(await store.listScopes('anything')).toEqual([])
    expect(await store.commit('fresh', 's', [put('/a', 'a', 0)])).toBe(1)
    await expect(d1Store(env.DB, { autoMigrate: false }).load('fresh', 's')).resolves.toMatchObject({ version: 1 })
  })
})
