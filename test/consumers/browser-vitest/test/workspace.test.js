import { createRunJs, indexedDbStore, isVfsError, openVfs } from 'agent-vfs'
import { expect, it } from 'vitest'

it('an IndexedDB workspace survives a reopen and run_js works on it', async () => {
  const a = await openVfs({ store: indexedDbStore(), namespace: 'consumer', scope: 'browser' })
  await a.writeFile('/work/n.txt', '20')
  await a.close()
  const b = await openVfs({ store: indexedDbStore(), namespace: 'consumer', scope: 'browser' })
  const r = await createRunJs({ vfs: b, typescript: false }).run(`return Number(await vfs.read('/work/n.txt')) + 1`)
  expect(r).toMatchObject({ success: true, result: 21 })
  expect(isVfsError(await b.readFile('/missing').catch(e => e), 'ENOENT')).toBe(true)
})

it('a TypeScript program gets its whole time limit, however long the TypeScript loader takes to load', async () => {
  const vfs = await openVfs({ store: indexedDbStore(), namespace: 'consumer', scope: 'typescript' })
  // The package's loader (~3.5 MB) is imported once first: cold, under Vite's first optimisation at
  // load 18, it took longer than the 30 s a loader gets. The loader the run gets then waits longer
  // than the run's limit before it answers.
  const loaded = await import('agent-vfs/run-js/typescript')
  const typescript = async () => {
    await new Promise(r => setTimeout(r, 1500))
    return loaded
  }
  const r = await createRunJs({ vfs, typescript, limits: { timeMs: 1000 } }).run(`const n: number = 41; return n + 1`)
  expect(r).toMatchObject({ success: true, result: 42 })
})
