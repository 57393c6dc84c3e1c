import DEBUG_SYNC from '@jitl/quickjs-wasmfile-debug-sync'
import { TestQuickJSWASMModule, type QuickJSSyncVariant } from 'quickjs-emscripten-core'
import { describe, expect, it } from 'vitest'
import { createRunJs, memoryStore, openVfs, variantEngine, type QuickJsEngine } from '../../src/index.js'

/**
 * How a runtime gets the debug build: by default its own loader. Only Node runs it today: in workerd
 * the debug variant refuses to start ("not compiled for this environment"), and in Chromium under Vite
 * its module never starts (run_js's 30 s start timeout turns that into a clean InternalError).
 */
export interface LeakHarness {
  wasmModule?: WebAssembly.Module
}

/**
 * With quickjs-emscripten's debug build (leak sanitizer on), nothing a run allocated may survive it,
 * whichever way the run ended. Every instance the engine makes is kept so the test can check it.
 */
function leakCheckingEngine(h: LeakHarness): QuickJsEngine & { modules: TestQuickJSWASMModule[] } {
  const modules: TestQuickJSWASMModule[] = []
  const base = variantEngine({
    variant: DEBUG_SYNC as QuickJSSyncVariant,
    ...(h.wasmModule ? { wasmModule: h.wasmModule } : {}),
    wrap: m => {
      const t = new TestQuickJSWASMModule(m)
      modules.push(t)
      return t
    },
  })
  return { modules, instantiate: memory => base.instantiate(memory) }
}

/**
 * `TestQuickJSWASMModule.assertNoMemoryAllocated` also counts runtimes it saw created, but in 0.32 a
 * disposed runtime never leaves that set (its `ownedLifetimes` are dropped by `newRuntime`). So:
 * the leak sanitizer's verdict, plus every runtime it saw must be disposed.
 */
function assertNoLeaks(m: TestQuickJSWASMModule): void {
  expect(m.getFFI().QTS_RecoverableLeakCheck(), 'leak sanitizer').toBe(0)
  expect(
    [...m.runtimes].filter(rt => rt.alive),
    'live runtimes',
  ).toHaveLength(0)
}

const DEBUG_MEMORY = 256 * 1024 * 1024

/** The leak tests, shared by every runtime. */
export function describeRunJsLeaks(name: string, h: LeakHarness = {}): void {
  describe(`run_js leaks nothing (debug build, leak sanitizer): ${name}`, () => {
    const cases: Array<[string, string, { timeMs?: number; memoryBytes?: number }, string | undefined]> = [
      ['a successful run', `const t = await vfs.read('/in.txt'); console.log(t); return { t, n: [1, 2, 3] }`, {}, undefined],
      ['a failed run', `await vfs.read('/missing')`, {}, 'VfsError'],
      ['a run whose result is not JSON', `return { f() {} }`, {}, 'TypeError'],
      [
        'a timeout with a host call in flight',
        `await Promise.all([external_hang({}), vfs.read('/in.txt')])`,
        { timeMs: 200 },
        'TimeoutError',
      ],
      ['a sync-loop timeout', `while (true) {}`, { timeMs: 200 }, 'TimeoutError'],
      ['an out-of-memory run', `const a = []; for (;;) a.push(new Array(1000).fill(1))`, { timeMs: 60_000 }, 'InternalError'],
      ['a stack overflow', `function f(n) { return f(n + 1) + 1 } return f(0)`, {}, 'InternalError'],
    ]
    for (const [label, program, limits, errorName] of cases) {
      it(`after ${label}`, async () => {
        const vfs = await openVfs({ store: memoryStore(), namespace: 'leaks', scope: 's' })
        await vfs.writeFile('/in.txt', 'hello')
        const engine = leakCheckingEngine(h)
        // The debug build (ASan) needs far more memory than the release build for the same program.
        const runJs = createRunJs({
          vfs,
          engine,
          limits: { memoryBytes: DEBUG_MEMORY, ...limits },
          tools: { hang: () => new Promise(() => {}) },
        })
        const r = await runJs.run(program)
        expect(r.error?.name).toBe(errorName)
        expect(engine.modules.length).toBe(1)
        // The instance (or its replacement) still serves a clean run.
        const next = await runJs.run('return 1')
        expect(next.result).toBe(1)
        // Runs share a runtime (not a context); closing the runner disposes it, and nothing may survive.
        runJs.close()
        for (const m of engine.modules) assertNoLeaks(m)
      }, 120_000)
    }
  })

  describe(`run_js leaks nothing across many runs on one runtime: ${name}`, () => {
    it('after 30 mixed runs and close()', async () => {
      const vfs = await openVfs({ store: memoryStore(), namespace: 'leaks', scope: 'many' })
      await vfs.writeFile('/in.txt', 'hello')
      const engine = leakCheckingEngine(h)
      const runJs = createRunJs({
        vfs,
        engine,
        limits: { memoryBytes: DEBUG_MEMORY, timeMs: 300 },
        tools: { echo: async x => x },
      })
      const programs = [
        `return await Promise.all([vfs.read('/in.txt'), external_echo({ a: [1, 2] }), vfs.list('/')])`,
        `console.log('x'); throw new TypeError('t')`,
        `return { f() {} }`,
        `await vfs.write('/out.json', { n: 1 }); return await vfs.exists('/out.json')`,
        `function f(n) { return f(n + 1) } f(0)`,
        `let s = ''; for (let i = 0; i < 1000; i++) s += i; return s.length`,
      ]
      for (let i = 0; i < 30; i++) await runJs.run(programs[i % programs.length])
      runJs.close()
      // (The debug build's memory grows fast, so the pool may have replaced the instance on the way.)
      for (const m of engine.modules) assertNoLeaks(m)
    }, 120_000)
  })
}
