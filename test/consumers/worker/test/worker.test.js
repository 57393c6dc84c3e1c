import { SELF } from 'cloudflare:test'
import { createRunJs, memoryStore, openVfs } from 'agent-vfs'
import { workerdEngine } from 'agent-vfs/run-js/workerd'
import { expect, it } from 'vitest'

it('the Worker runs run_js over its Durable Object store, TypeScript included', async () => {
  const write = await SELF.fetch('https://consumer/run', {
    method: 'POST',
    body: `await vfs.write('/work/n.txt', '21'); return 1`,
  })
  expect(await write.json()).toMatchObject({ success: true, result: 1 })
  const read = await SELF.fetch('https://consumer/run', {
    method: 'POST',
    body: `const n: number = Number(await vfs.read('/work/n.txt')); return n * 2`,
  })
  expect(await read.json()).toMatchObject({ success: true, result: 42 })
})

it('the pre-bundled TypeScript loader works in the pool', async () => {
  const vfs = await openVfs({ store: memoryStore(), namespace: 'pool', scope: 's' })
  const runJs = createRunJs({ vfs, engine: workerdEngine(), typescript: () => import('agent-vfs/run-js/typescript') })
  expect(await runJs.run(`interface P { n: number }\nconst p: P = { n: 20 }\nreturn p.n + 2`)).toMatchObject({
    success: true,
    result: 22,
  })
})

it('migrateD1 from agent-vfs/worker sets up the session index on an empty D1, twice, running column included', async () => {
  const { env } = await import('cloudflare:test')
  const { D1_SESSION_SCHEMA, d1OwnerIndex, migrateD1 } = await import('agent-vfs/worker')
  await migrateD1(env.DB)
  await migrateD1(env.DB)
  const index = d1OwnerIndex(env.DB)
  const record = { id: 's1', owner: 'ana', createdAt: 1, updatedAt: 1, status: 'idle', title: 'one' }
  await index.add(record, {})
  await index.setRunning('ana', 's1', true, 1)
  expect(await env.DB.prepare('SELECT running FROM sessions WHERE id = ?1').bind('s1').first('running')).toBe(1)
  expect((await index.list('ana', { limit: 10 })).items.map(s => s.id)).toEqual(['s1'])
  expect(D1_SESSION_SCHEMA.some(s => s.includes('running'))).toBe(true)
})
