import { SELF } from 'cloudflare:test'
import { createRunJs, memoryStore, openVfs } from 'agent-vfs'
import { workerdEngine } from 'agent-vfs/run-js/workerd'
import { expect, it } from 'vitest'

it('the Worker runs run_js over its Durable Object store, TypeScript included', async () => {
  const write = await SELF.fetch('https://consumer/run', { method: 'POST', body: `await vfs.write('/work/n.txt', '21'); return 1` })
  expect(await write.json()).toMatchObject({ success: true, result: 1 })
  const read = await SELF.fetch('https://consumer/run', { method: 'POST', body: `const n: number = Number(await vfs.read('/work/n.txt')); return n * 2` })
  expect(await read.json()).toMatchObject({ success: true, result: 42 })
})

it('the pre-bundled TypeScript loader works in the pool', async () => {
  const vfs = await openVfs({ store: memoryStore(), namespace: 'pool', scope: 's' })
  const runJs = createRunJs({ vfs, engine: workerdEngine(), typescript: () => import('agent-vfs/run-js/typescript') })
  expect(await runJs.run(`interface P { n: number }\nconst p: P = { n: 20 }\nreturn p.n + 2`)).toMatchObject({ success: true, result: 22 })
})
