import pg from 'pg'
import { afterAll, describe, expect, it } from 'vitest'
import { isVfsError, openVfs, postgresStore } from '../../src/index.js'

// CI always provides a server; a missing one is a failure, never a silent skip.
const url = process.env.PG_URL
if (!url) throw new Error('PG_URL is not set: run `scripts/postgres.sh start` and export the PG_URL it prints (npm test does both)')

const pools: pg.Pool[] = []
const newPool = (max: number) => {
  const pool = new pg.Pool({ connectionString: url, max })
  pools.push(pool)
  return pool
}
afterAll(async () => {
  await Promise.all(pools.map(p => p.end()))
})

/** Checks out every connection of `pool` and opens a transaction on each that writes the scope's version row (and so holds its lock). */
async function holdEveryConnection(pool: pg.Pool, namespace: string, scope: string) {
  const held = await Promise.all(Array.from({ length: pool.options.max }, () => pool.connect()))
  for (const conn of held) await conn.query('BEGIN')
  // One of them writes the scope's row and keeps its lock; the others just hold their connection.
  await held[0].query(`UPDATE "agent_vfs_scopes" SET version = version + 100 WHERE namespace = $1 AND scope = $2`, [namespace, scope])
  return {
    release: async () => {
      for (const conn of held.splice(0)) {
        await conn.query('ROLLBACK')
        conn.release()
      }
    },
  }
}

describe('postgresStore { reads }: plain reads on their own pool', () => {
  it('a read answers while every connection of the main pool is held by an open transaction', async () => {
    const main = newPool(2)
    const store = postgresStore({ client: main, reads: newPool(1) })
    await store.migrate()
    const namespace = 'reads'
    const scope = `held-${Date.now().toString(36)}`
    const vfs = await openVfs({ store, namespace, scope, autoRefresh: false })
    await vfs.writeFile('/a.txt', 'committed')
    const before = await store.load(namespace, scope)
    const held = await holdEveryConnection(main, namespace, scope)
    try {
      expect(main.idleCount).toBe(0)
      // The read does not wait for a connection of the main pool, nor for the row lock the open
      // transaction holds, and sees only what was committed (read committed: not the +100).
      const during = await withinSeconds(10, store.load(namespace, scope))
      expect(during.version).toBe(before.version)
      expect(new TextDecoder().decode(during.entries.find(e => e.path === '/a.txt')!.data)).toBe('committed')
      expect(await store.listScopes(namespace)).toContain(scope)
      expect((await store.history!.changes(namespace, scope)).map(c => c.path)).toEqual(['/a.txt'])
      // A write needs the main pool: it waits (not yet settled) until the transactions end.
      let written = false
      const write = vfs.writeFile('/b.txt', 'after').then(() => (written = true))
      await new Promise(r => setTimeout(r, 200))
      expect(written).toBe(false)
      await held.release()
      await write
    } finally {
      await held.release()
    }
    // A read right after an acknowledged commit sees it, though the commit ran on another pool.
    const after = await store.load(namespace, scope)
    expect(after.entries.map(e => e.path).sort()).toEqual(['/a.txt', '/b.txt'])
  })

  it('without { reads } the same read queues behind the held connections (what the option is for)', async () => {
    const main = newPool(2)
    const store = postgresStore({ client: main })
    await store.migrate()
    const namespace = 'reads'
    const scope = `queued-${Date.now().toString(36)}`
    await store.commit(namespace, scope, [
      { op: 'put', path: '/a.txt', kind: 'file', data: new Uint8Array([1]), mtime: 1, ctime: 1, expectedVersion: null },
    ])
    const held = await holdEveryConnection(main, namespace, scope)
    let answered = false
    const read = store.load(namespace, scope).then(s => ((answered = true), s))
    await new Promise(r => setTimeout(r, 200))
    expect(answered).toBe(false)
    expect(main.waitingCount).toBe(1)
    await held.release()
    expect((await read).entries.map(e => e.path)).toEqual(['/a.txt'])
  })

  it('refuses a { reads } without query()', () => {
    const client = newPool(1)
    expect(
      isVfsError(
        catching(() => postgresStore({ client, reads: {} as pg.Pool })),
        'EINVAL',
      ),
    ).toBe(true)
  })
})

/** `promise`, or a failure after `seconds` (generous: a read that queues behind the held connections never answers). */
function withinSeconds<T>(seconds: number, promise: Promise<T>): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${seconds} s: the read waited for the main pool`)), seconds * 1000)
  })
  return Promise.race([promise, late]).finally(() => clearTimeout(timer))
}

function catching(fn: () => unknown): unknown {
  try {
    fn()
  } catch (error) {
    return error
  }
  return undefined
}
