import { createRunJs, indexedDbStore, isVfsError, openVfs } from 'agent-vfs'
import { expect, it } from 'vitest'

it('an IndexedDB workspace survives a reopen and run_js works on it', async () => {
  const a = await openVfs({ store: indexedDbStore(), namespace: 'consumer', scope: 'browser' })
  await a.writeFile('/work/n.txt', '20')
  await a.close()
  const b = await openVfs({ store: indexedDbStore(), namespace: 'consumer', scope: 'browser' })
  const r = await createRunJs({ vfs: b, typescript: false }).run(`return Number(await vfs.read('/work/n.txt')) + 1`)
  expect(r).toMatchObject({ success: true, result: 21 })
  expect(isVfsError(await b.readFile('/missing').catch((e) => e), 'ENOENT')).toBe(true)
})
