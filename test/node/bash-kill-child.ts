// Run by bash-kill.test.ts in its own process. Opens a PGlite workspace at the data directory it is
// given and runs one bash command line that writes 300 files and then sleeps `sleepSeconds`. It prints
// "staged" once the command has made its 300th write (the view is asked about it then) and "done <exit>"
// when the command line ended; the parent kills it with SIGKILL after "staged".
import { PGlite } from '@electric-sql/pglite'
import { openVfs, postgresStore, restrict } from '../../src/index.js'
import { createBash } from '../../src/bash/index.js'

const [dataDir, sleepSeconds] = process.argv.slice(2)
const store = postgresStore({ client: await PGlite.create(dataDir) })
await store.migrate()
const vfs = await openVfs({ store, namespace: 'kill', scope: 'bash', autoRefresh: false })
const view = restrict(vfs, {
  check: (access, path) => {
    if (access !== 'read' && path === '/work/f300.txt') process.stdout.write('staged\n')
  },
})
const bash = createBash({ vfs: view, limits: { timeoutMs: 120_000 } })
const r = await bash.exec(`for i in $(seq 1 300); do echo $i > /work/f$i.txt; done; sleep ${sleepSeconds}`)
await vfs.flush()
process.stdout.write(`done ${r.exitCode} ${r.stderr.trim()}\n`)
await vfs.close()
process.exit(0)
