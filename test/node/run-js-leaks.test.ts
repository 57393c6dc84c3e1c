import DEBUG_SYNC from '@jitl/quickjs-wasmfile-debug-sync'
import { TestQuickJSWASMModule, type QuickJSSyncVariant } from 'quickjs-emscripten-core'
import { describe, expect, it } from 'vitest'
import { createRunJs, memoryStore, openVfs, variantEngine, type QuickJsEngine } from '../../src/index.js'

/**
 * With quickjs-emscripten's debug build (leak sanitizer on), nothing a run allocated may survive it,
 * whichever way the run ended. Every instance the engine makes is kept so the test can check it.
 */
function leakCheckingEngine(): QuickJsEngine & { modules: TestQuickJSWASMModule[] } {
  const modules: TestQuickJSWASMModule[] = []
  const base = variantEngine({
    variant: DEBUG_SYNC as QuickJSSyncVariant,
    wrap: (m) => {
      const t = new TestQuickJSWASMModule(m)
      modules.push(t)
      return t
    },
  })
  return { modules, instantiate: (memory) => base.instantiate(memory) }
}

/**
 * `TestQuickJSWASMModule.assertNoMemoryAllocated` also counts runtimes it saw created, but in 0.32 a
 * disposed runtime never leaves that set (its `ownedLifetimes` are dropped by `newRuntime`). So:
 * the leak sanitizer's verdict, plus every runtime it saw must be disposed.
 */
function assertNoLeaks(m: TestQuickJSWASMModule): void {
  expect(m.getFFI().QTS_RecoverableLeakCheck(), 'leak sanitizer').toBe(0)
  expect([...m.runtimes].filter((rt) => rt.alive), 'live runtimes').toHaveLength(0)
}

const DEBUG_MEMORY = 256 * 1024 * 1024

describe('run_js leaks nothing (debug build, leak sanitizer)', () => {
  const cases: Array<[string, string, { timeMs?: number; memoryBytes?: number }, string | undefined]> = [
    ['a successful run', `const t = await vfs.read('/in.txt'); console.log(t); return { t, n: [1, 2, 3] }`, {}, undefined],
    ['a failed run', `await vfs.read('/missing')`, {}, 'VfsError'],
    ['a run whose result is not JSON', `return { f() {} }`, {}, 'TypeError'],
    ['a timeout with a host call in flight', `await Promise.all([external_hang({}), vfs.read('/in.txt')])`, { timeMs: 200 }, 'TimeoutError'],
    ['a sync-loop timeout', `while (true) {}`, { timeMs: 200 }, 'TimeoutError'],
    ['an out-of-memory run', `const a = []; for (;;) a.push(new Array(1000).fill(1))`, { timeMs: 60_000 }, 'InternalError'],
    ['a stack overflow', `function f(n) { return f(n + 1) + 1 } return f(0)`, {}, 'InternalError'],
  ]
  for (const [label, program, limits, errorName] of cases) {
    it(`after ${label}`, async () => {
      const vfs = await openVfs({ store: memoryStore(), namespace: 'leaks', scope: 's' })
      await vfs.writeFile('/in.txt', 'hello')
      const engine = leakCheckingEngine()
      // The debug build (ASan) needs far more memory than the release build for the same program.
      const runJs = createRunJs({ vfs, engine, limits: { memoryBytes: DEBUG_MEMORY, ...limits }, tools: { hang: () => new Promise(() => {}) } })
      const r = await runJs.run(program)
      expect(r.error?.name).toBe(errorName)
      expect(engine.modules).toHaveLength(1)
      assertNoLeaks(engine.modules[0])
      // And the instance (or its replacement) still serves a clean run without leaking.
      const next = await runJs.run('return 1')
      expect(next.result).toBe(1)
      for (const m of engine.modules) assertNoLeaks(m)
    }, 120_000)
  }
})

