// Run by history-kill.test.ts in its own process, then killed with SIGKILL mid-commit. Prepares a
// scope, prints "ready", then lands 300 files as ONE commit (a branch commit or a revert).
import { PGlite } from '@electric-sql/pglite'
import pg from 'pg'
import { openVfs, postgresStore, withActor } from '../../src/index.js'

const [kind, where, scope, mode] = process.argv.slice(2)
const client = kind === 'pglite' ? await PGlite.create(where) : new pg.Pool({ connectionString: where, max: 2 })
const store = postgresStore({ client })
await store.migrate()
const vfs = await openVfs({ store, namespace: 'kill', scope, autoRefresh: false })
const FILES = 300
const paths = Array.from({ length: FILES }, (_, i) => `/work/${i % 10}/${i}.txt`)
if (mode === 'branch') {
  await Promise.all(paths.map(p => vfs.writeFile(p, 'A')))
  const branch = await vfs.branch({ name: 'attempt' })
  await Promise.all(paths.map(p => branch.writeFile(p, 'B'.repeat(2000))))
  await branch.flush()
  process.stdout.write('ready\n')
  const r = await branch.commit()
  process.stdout.write(`done ${r.ok}\n`)
} else {
  const start = vfs.version
  const run = withActor(vfs, 'run')
  await Promise.all(paths.map(p => run.writeFile(p, 'R'.repeat(2000))))
  process.stdout.write('ready\n')
  const r = await vfs.revert({ after: start, actor: a => a === 'run' })
  process.stdout.write(`done ${r.ok}\n`)
}
