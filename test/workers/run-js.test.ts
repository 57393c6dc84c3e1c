import { runInDurableObject } from 'cloudflare:test'
import { env } from 'cloudflare:workers'
import { describe, expect, it } from 'vitest'
import { createRunJs, durableObjectStore, memoryStore, openVfs, scopeRun } from '../../src/index.js'
import { workerdEngine } from '../../src/runtimes/workerd/index.js'
import { describeRunJsHostile } from '../hostile/run-js.js'
import { describeRunJs } from '../run-js/suite.js'
import { storeInsideDurableObject } from './durable-object-harness.js'

// The shared suite on a durableObjectStore workspace whose every store call runs inside a real
// Durable Object; QuickJS comes from the imported wasm module, as Workers require. TypeScript comes from
// agent-vfs/run-js/typescript, the pre-bundled loader the package ships (test/run-js/ts-vendor.ts builds it
// the same way): raw `typescript` is too large for the pool.
describeRunJs('workerd, durable object store', async () => ({
  store: storeInsideDurableObject('run-js'),
  engine: workerdEngine(),
  typescript: () => import('agent-vfs/run-js/typescript'),
}))

describeRunJsHostile('workerd, memory store', async () => ({ store: memoryStore(), engine: workerdEngine() }))

describe('run_js entirely inside a Durable Object', () => {
  it('runs a program against the object’s own storage, under a run scope, with the limits on', async () => {
    const stub = env.WORKSPACE.getByName('run-js-inside')
    const out = await runInDurableObject(stub, async (_instance, state) => {
      const vfs = await openVfs({
        store: durableObjectStore(state.storage),
        namespace: 'runjs',
        scope: 'inside',
        autoRefresh: false,
      })
      const run = scopeRun(vfs, { runId: 'r1' })
      await run.seed('/context/n.txt', '21')
      // The memory bomb gets a deadline it cannot reach first (on a loaded machine 300 ms can pass
      // before the memory cap does); the endless loop gets the short one.
      const runJs = createRunJs({ vfs: run, engine: workerdEngine(), limits: { timeMs: 30_000 } })
      const ok = await runJs.run(
        `const n = Number(await vfs.read('/context/n.txt')); await vfs.write('/outputs/x.json', { n: n * 2 }); return n * 2`,
      )
      const bomb = await runJs.run(`const a = []; for (;;) a.push(new Uint8Array(1 << 20))`)
      const short = createRunJs({ vfs: run, engine: workerdEngine(), limits: { timeMs: 300 } })
      const loop = await short.run(`while (true) {}`)
      const stored = await vfs.readFile('/runs/r1/outputs/x.json', 'utf8')
      return { ok, bomb: bomb.error, loop: loop.error?.name, stored }
    })
    expect(out.ok).toMatchObject({ success: true, result: 42, scriptPath: '/state/.run_js/run-001.js' })
    expect(out.bomb?.message).toMatch(/out of memory/)
    expect(out.loop).toBe('TimeoutError')
    expect(JSON.parse(out.stored)).toEqual({ n: 42 })
  })
})
