/**
 * History and branches (docs/history.md): `vfs.branch.create` (a branch of a 10,000-file
 * workspace vs one of an empty workspace), `vfs.branch.commit` (landing a 1,000-file branch vs a
 * plain group commit of the same writes), `vfs.branch.merge` (a commit merging 1,000 files changed on
 * both sides, one line each, vs a plain group commit of the merged writes), `vfs.history.read` (the history of a 1,000-change run on
 * PGlite vs a bare SELECT of those rows) and `vfs.history.overhead` (bytes history keeps vs the
 * workspace's own bytes after the appendix job: 60 episodes, the appendix and its follow-up).
 */
import { PGlite } from '@electric-sql/pglite'
import { memoryStore, openVfs, postgresStore, withActor, type VersionedVfs, type VfsStore } from '../src/index.js'
import { createRunJs, scopeRun } from '../src/index.js'
import { generateEpisodes } from '../fixtures/script-appendix/generator.js'
import { runAppendixStages } from '../fixtures/script-appendix/stages.js'
import { seedInput } from '../fixtures/script-appendix/task.js'
import { compareMedian, Results, size, wanted } from './harness.js'

const results = new Results('vfs.json')
const text = (i: number, n = 1024) => `${i}: ${'line of a file in a workspace\n'.repeat(Math.ceil(n / 30))}`.slice(0, n)

async function seeded(files: number, scope: string): Promise<VersionedVfs> {
  const vfs = await openVfs({ store: memoryStore(), namespace: 'bench', scope })
  await Promise.all(Array.from({ length: files }, (_, i) => vfs.writeFile(`/work/${i % 100}/${i}.md`, text(i))))
  return vfs
}

async function branchCreate() {
  if (!wanted('vfs.branch.create')) return
  const big = await seeded(size(10_000, 200), 'big')
  const empty = await seeded(0, 'empty')
  let n = 0
  const { ours, baseline } = await compareMedian(
    () => big.branch({ name: `b${++n}` }),
    () => empty.branch({ name: `b${++n}` }),
    { rounds: 41, warmup: 5 },
  )
  results.add({
    name: 'vfs.branch.create',
    unit: 'ms per branch',
    better: 'lower',
    ours,
    baseline,
    target: 'ratio <= 1.1 and <= 1 ms',
    baselineLabel: 'branch() of an empty workspace (memory store)',
  })
}

async function branchCommit() {
  if (!wanted('vfs.branch.commit')) return
  const files = size(1000, 50)
  let landing!: () => Promise<unknown>
  let plain!: () => Promise<unknown>
  const { ours, baseline } = await compareMedian(
    () => landing(),
    () => plain(),
    {
      rounds: 9,
      warmup: 2,
      setup: async () => {
        const base = await seeded(files, 'commit')
        const branch = await base.branch()
        await Promise.all(Array.from({ length: files }, (_, i) => branch.writeFile(`/work/${i % 100}/${i}.md`, text(i + 1))))
        landing = async () => {
          const r = await branch.commit()
          if (!r.ok) throw new Error('the branch conflicted')
        }
        const direct = await seeded(files, 'plain')
        plain = () => Promise.all(Array.from({ length: files }, (_, i) => direct.writeFile(`/work/${i % 100}/${i}.md`, text(i + 1))))
      },
    },
  )
  results.add({
    name: 'vfs.branch.commit',
    unit: `ms per ${files}-file commit`,
    better: 'lower',
    ours,
    baseline,
    target: 'ratio <= 1.2',
    baselineLabel: 'the same writes as one plain group commit (memory store)',
  })
}

async function historyRead() {
  if (!wanted('vfs.history.read')) return
  const db = await PGlite.create()
  const store = postgresStore({ client: db })
  await store.migrate()
  const vfs = await openVfs({ store, namespace: 'bench', scope: 'history' })
  const run = withActor(vfs, { kind: 'execution', id: 'e1' })
  const start = vfs.version
  const changes = size(1000, 50)
  for (let i = 0; i < changes; i += 10)
    await Promise.all(Array.from({ length: 10 }, (_, k) => run.writeFile(`/work/${i + k}.md`, text(i + k, 200))))
  const { ours, baseline } = await compareMedian(
    async () => {
      const n = (await vfs.history({ after: start })).reduce((sum, e) => sum + e.changes.length, 0)
      if (n < changes) throw new Error(`history has ${n} changes, expected ${changes} files (and their directory)`)
    },
    () =>
      db.query('SELECT * FROM agent_vfs_changes WHERE namespace = $1 AND scope = $2 AND version > $3 ORDER BY version, path', [
        'bench',
        'history',
        start,
      ]),
    { rounds: 15, warmup: 3 },
  )
  await db.close()
  results.add({
    name: 'vfs.history.read',
    unit: `ms per ${changes}-change history`,
    better: 'lower',
    ours,
    baseline,
    target: 'ratio <= 2',
    baselineLabel: 'bare SELECT of the same rows (PGlite)',
  })
}

async function historyOverhead() {
  if (!wanted('vfs.history.overhead')) return
  // After the appendix job (fixtures/script-appendix: 60 generated episodes seeded into /context, the
  // appendix run then its follow-up, scripted models, real run_js), everything kept (no gc): the bytes
  // history holds (change rows and before-images) against the workspace's own bytes.
  const store = memoryStore()
  const vfs = await openVfs({ store, namespace: 'bench', scope: 'overhead', autoRefresh: false })
  const run = scopeRun(vfs, { runId: 'main' })
  await seedInput(run, generateEpisodes({ count: size(60, 4) }).files)
  await runAppendixStages(run, v => createRunJs({ vfs: v }))
  const history = await store.history!.usage('bench', 'overhead')
  const commits = (await vfs.history()).length
  results.add({
    name: 'vfs.history.overhead',
    unit: 'bytes',
    better: 'lower',
    ours: history.bytes,
    baseline: vfs.usage().bytes,
    target: 'reported',
    baselineLabel: `the workspace’s own bytes after the appendix job (${commits} commits, all history kept)`,
  })
}

/** A file of unique lines, with line `edit` changed by `who` when given. */
const linesText = (i: number, edits: Array<[number, string]> = []): string =>
  Array.from({ length: 34 }, (_, k) => edits.find(([at]) => at === k)?.[1] ?? `${i}.${k}: line of a file in a workspace\n`).join('')

/**
 * A commit merging `files` files changed on both sides (one line each, far apart) vs a plain group
 * commit of the merged writes, on the memory store (where a commit costs least, so the merge's
 * share shows most) and on PGlite.
 */
async function branchMerge(name: string, store: () => Promise<VfsStore>, label: string) {
  if (!wanted(name)) return
  const files = size(1000, 50)
  const path = (i: number) => `/work/${i % 100}/${i}.md`
  const merged = (i: number) =>
    linesText(i, [
      [3, `ours ${i}\n`],
      [30, `theirs ${i}\n`],
    ])
  let landing!: () => Promise<unknown>
  let plain!: () => Promise<unknown>
  let round = 0
  const { ours, baseline } = await compareMedian(
    () => landing(),
    () => plain(),
    {
      rounds: 9,
      warmup: 2,
      setup: async () => {
        const base = await openVfs({ store: await store(), namespace: 'bench', scope: `merge-${++round}` })
        await Promise.all(Array.from({ length: files }, (_, i) => base.writeFile(path(i), linesText(i))))
        const branch = await base.branch()
        await Promise.all(Array.from({ length: files }, (_, i) => branch.writeFile(path(i), linesText(i, [[30, `theirs ${i}\n`]]))))
        await branch.flush()
        await Promise.all(Array.from({ length: files }, (_, i) => base.writeFile(path(i), linesText(i, [[3, `ours ${i}\n`]]))))
        landing = async () => {
          const r = await branch.commit()
          if (!r.ok || r.changes.length !== files) throw new Error('the merge conflicted')
          if ((await base.readFile(path(7), 'utf8')) !== merged(7)) throw new Error('the merge is wrong')
        }
        const direct = await openVfs({ store: await store(), namespace: 'bench', scope: `plain-${round}` })
        await Promise.all(Array.from({ length: files }, (_, i) => direct.writeFile(path(i), linesText(i, [[3, `ours ${i}\n`]]))))
        const texts = Array.from({ length: files }, (_, i) => merged(i))
        plain = () => Promise.all(texts.map((text, i) => direct.writeFile(path(i), text)))
      },
    },
  )
  results.add({
    name,
    unit: `ms per ${files}-file merging commit`,
    better: 'lower',
    ours,
    baseline,
    target: 'ratio <= 1.5',
    baselineLabel: `the merged writes as one plain group commit (${label})`,
  })
}

let pglite: Promise<VfsStore> | undefined
const pgliteStore = () =>
  (pglite ??= (async () => {
    const store = postgresStore({ client: await PGlite.create() })
    await store.migrate()
    return store
  })())

await branchCreate()
await branchCommit()
await branchMerge('vfs.branch.merge', async () => memoryStore(), 'memory store')
await branchMerge('vfs.branch.merge.pglite', pgliteStore, 'PGlite')
await historyRead()
await historyOverhead()
