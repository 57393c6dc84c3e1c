// Run by history-kill.test.ts in its own process, then killed with SIGKILL. Prepares a scope, prints
// "ready", then lands 300 files as ONE commit (a branch commit or a revert). `stopAt` says where the
// parent's kill lands: 0, before the commit starts; k > 0, right after the k-th statement the store
// runs inside a transaction from then on (the child prints "at k" and waits there to be killed);
// -1, after the commit was acknowledged (the child prints "done <ok> <statements>" and waits).
// Mode `gc`: ten rounds of 300 writes (the child prints "round <r> <version>" after each), then one
// retention pass (`gc({ keepVersions: 3 })`) in the place of the commit: a collection killed anywhere.
// Mode `merge`: 300 files changed in a branch and in the workspace without overlap: a merging commit.
import { PGlite } from '@electric-sql/pglite'
import pg from 'pg'
import { openVfs, postgresStore, type SqlClient } from '../../src/index.js'
import { withActor } from '../../src/index.js'
import { MERGE_BASE, MERGE_OURS, MERGE_THEIRS } from './history-kill-merge.js'

const [kind, where, scope, mode, stopArg] = process.argv.slice(2)
const stopAt = Number(stopArg ?? -1)
const forever = () => new Promise<never>(() => undefined)
let armed = false
let statements = 0

/** Counts one statement once armed; at the `stopAt`-th the process stops there, waiting for its kill. */
async function tick(text: string): Promise<void> {
  if (!armed || ++statements !== stopAt) return
  process.stdout.write(`at ${statements} ${text.replace(/\s+/g, ' ').slice(0, 40)}\n`)
  await forever()
}

/** `q` whose statements are counted ({@link tick}) after they ran. */
function counted<Q extends SqlClient>(q: Q): Q {
  return new Proxy(q, {
    get(target, key) {
      const value = Reflect.get(target, key, target)
      if (key !== 'query') return typeof value === 'function' ? value.bind(target) : value
      return async (text: string, params?: unknown[]) => {
        const result = await target.query(text, params)
        await tick(text)
        return result
      }
    },
  })
}

/** The client, with every statement inside a transaction counted (PGlite's `transaction` and its commit, a pool's checked-out connection). */
function hooked(client: PGlite | pg.Pool): SqlClient {
  return new Proxy(client, {
    get(target, key) {
      const value = Reflect.get(target, key, target)
      if (key === 'transaction' && target instanceof PGlite)
        return async (fn: (tx: SqlClient) => Promise<unknown>) => {
          const result = await target.transaction(tx => fn(counted(tx as unknown as SqlClient)))
          await tick('COMMIT') // PGlite commits when the function returns: the point right after it counts as a statement
          return result
        }
      if (key === 'connect' && target instanceof pg.Pool) return async () => counted(await target.connect())
      return typeof value === 'function' ? value.bind(target) : value
    },
  }) as unknown as SqlClient
}

const client = kind === 'pglite' ? await PGlite.create(where) : new pg.Pool({ connectionString: where, max: 2 })
const store = postgresStore({ client: hooked(client) })
await store.migrate()
const vfs = await openVfs({ store, namespace: 'kill', scope, autoRefresh: false })
const FILES = 300
const paths = Array.from({ length: FILES }, (_, i) => `/work/${i % 10}/${i}.txt`)
const ready = () => {
  process.stdout.write('ready\n')
  armed = true
  return stopAt === 0 ? forever() : undefined
}
let ok: boolean
if (mode === 'branch') {
  await Promise.all(paths.map(p => vfs.writeFile(p, 'A')))
  const branch = await vfs.branch({ name: 'attempt' })
  await Promise.all(paths.map(p => branch.writeFile(p, 'B'.repeat(2000))))
  await branch.flush()
  await ready()
  ok = (await branch.commit()).ok
} else if (mode === 'merge') {
  // Each file changed on both sides without overlap: the commit merges all 300 three ways.
  await Promise.all(paths.map(p => vfs.writeFile(p, MERGE_BASE)))
  const branch = await vfs.branch({ name: 'attempt' })
  await Promise.all(paths.map(p => branch.writeFile(p, MERGE_THEIRS)))
  await branch.flush()
  await Promise.all(paths.map(p => vfs.writeFile(p, MERGE_OURS)))
  await vfs.flush()
  await ready()
  const result = await branch.commit()
  ok = result.ok && result.changes.length === FILES
} else if (mode === 'gc') {
  for (let round = 0; round < 10; round++) {
    await Promise.all(paths.map(p => vfs.writeFile(p, String(round).repeat(200))))
    await vfs.flush()
    process.stdout.write(`round ${round} ${vfs.version}\n`)
  }
  await ready()
  ok = (await vfs.gc({ keepVersions: 3 })).removedChanges > 0
} else {
  const start = vfs.version
  const run = withActor(vfs, 'run')
  await Promise.all(paths.map(p => run.writeFile(p, 'R'.repeat(2000))))
  await ready()
  ok = (await vfs.revert({ after: start, actor: a => a === 'run' })).ok
}
process.stdout.write(`done ${ok} ${statements}\n`)
await forever()
