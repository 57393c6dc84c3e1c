import { Scope } from 'quickjs-emscripten-core'
import { describe, expect, it } from 'vitest'
import { createRunJs, DEFAULT_LIMITS, memoryStore, openVfs } from '../../src/index.js'
import { defaultEngine } from '../../src/internal.js'
import { DirectCalls } from '../../src/run-js/engine/direct.js'
import { NameTable } from '../../src/run-js/engine/names.js'
import { memoryPages } from '../../src/run-js/engine/limits.js'
import { PROGRAM_FILE } from '../../src/run-js/guest/guest-error.js'
import { Intrinsics } from '../../src/run-js/guest/intrinsics.js'
import { describeRunJsHostile } from '../hostile/run-js.js'
import { describeRunJs } from '../run-js/suite.js'

describeRunJs('node, memory store', async () => ({ store: memoryStore() }))
describeRunJsHostile('node, memory store', async () => ({ store: memoryStore() }))

/**
 * The run's QuickJS calls go straight into the module where quickjs-emscripten's internals are the
 * ones engine/direct.ts knows, and through its public API elsewhere: both must behave alike.
 */
describe('run_js direct calls (engine/direct.ts) and the public API agree', () => {
  for (const direct of [true, false]) {
    it(direct ? 'direct' : 'public API', async () => {
      const module = await defaultEngine().instantiate(new WebAssembly.Memory(memoryPages(DEFAULT_LIMITS.memoryBytes)))
      const rt = module.newRuntime()
      const ctx = rt.newContext()
      const scope = new Scope()
      const k = new Intrinsics(ctx, scope, direct)
      const other = rt.newContext()
      const opened = DirectCalls.open(other, new NameTable(['x']))
      expect(opened).toBeDefined() // Node's release build takes the direct path
      opened!.close()
      other.dispose()
      expect(DirectCalls.open({} as never, new NameTable(['x']))).toBeUndefined()
      // Keys, functions and calls.
      const seen: unknown[] = []
      const fn = scope.manage(k.newFunction('read', (...args) => (seen.push(...args.map(a => ctx.dump(a))), ctx.newString('ok'))))
      expect(ctx.dump(scope.manage(k.getProp(fn, 'name')))).toBe('read')
      const o = scope.manage(ctx.newObject())
      k.setProp(o, 'read', fn)
      k.defineValue(ctx.global, 'vfs', o, false, false)
      const probe = scope.manage(
        ctx.unwrapResult(
          ctx.evalCode(
            `(a) => [vfs.read(a, 2), Object.getOwnPropertyDescriptor(globalThis, 'vfs').writable, Object.getOwnPropertyDescriptor(globalThis, 'vfs').configurable]`,
          ),
        ),
      )
      const arg = scope.manage(ctx.newString('p'))
      const called = k.callFunction(probe, ctx.undefined, arg)
      expect(ctx.dump(scope.manage(called.value!))).toEqual(['ok', false, false])
      expect(seen).toEqual(['p', 2])
      // A getter-only global: non-configurable, not enumerable, no setter, its value the host's.
      let reads = 0
      k.defineGetter(ctx.global, 'console', () => (reads++, ctx.newString('made')))
      const getter = ctx.unwrapResult(
        ctx.evalCode(
          `const d = Object.getOwnPropertyDescriptor(globalThis, 'console'); [console, console, d.configurable, d.enumerable, typeof d.get, typeof d.set]`,
        ),
      )
      expect(ctx.dump(scope.manage(getter))).toEqual(['made', 'made', false, false, 'function', 'undefined'])
      expect(reads).toBe(2)
      const thrower = scope.manage(ctx.unwrapResult(ctx.evalCode(`() => { throw new TypeError('no') }`)))
      const thrown = k.callFunction(thrower, ctx.undefined)
      expect(ctx.dump(scope.manage(thrown.error!))).toMatchObject({ name: 'TypeError', message: 'no' })
      // typeof, a string's length.
      for (const [src, type] of [
        ['undefined', 'undefined'],
        ['null', 'object'],
        ['1', 'number'],
        ['"é"', 'string'],
        ['true', 'boolean'],
        ['Symbol()', 'symbol'],
        ['1n', 'bigint'],
        ['() => 1', 'function'],
      ]) {
        const h = scope.manage(ctx.unwrapResult(ctx.evalCode(src)))
        expect(k.typeof(h)).toBe(type)
      }
      const s = scope.manage(ctx.newString('héllo'))
      const length = scope.manage(ctx.newString('length'))
      expect(k.numberAt(s, length)).toBe(5)
      // Strings into the guest (engine/heap-utf8.ts when direct): ASCII, Latin-1 (one byte a character
      // in V8, two in UTF-8), two-byte, astral pairs, large, empty; as quickjs-emscripten makes them.
      for (const text of ['', 'plain', 'héllo', 'naïve — “quotes”', '日本語', 'emoji 😀 pair', 'a'.repeat(70_000) + 'é' + '😀'.repeat(9)]) {
        const h = scope.manage(k.newString(text))
        expect(ctx.getString(h)).toBe(text)
        expect(k.numberAt(h, length)).toBe(text.length)
      }
      // A program with a lone surrogate in its source reads it as QuickJS always has (emscripten's copy).
      const source = `'\ud800x'.charCodeAt(0) + ':' + '\ud800x'.length + ':' + 'é😀'.length` // the escape makes a raw lone surrogate
      expect((source as unknown as { isWellFormed(): boolean }).isWellFormed()).toBe(false)
      const lone = k.evalCode(source, PROGRAM_FILE)
      expect(ctx.dump(scope.manage(lone.value!))).toBe('55296:2:3')
      // Promises and the job pump.
      const deferred = k.newPromise()
      const then = scope.manage(ctx.unwrapResult(ctx.evalCode(`(p) => p.then(v => { globalThis.got = v; throw new RangeError('late') })`)))
      scope.manage(k.callFunction(then, ctx.undefined, deferred.handle).value!)
      deferred.resolve(scope.manage(ctx.newNumber(7)))
      deferred.dispose()
      expect(deferred.alive).toBe(false)
      expect(k.executePendingJobs().error).toBeUndefined() // the rejection is the promise's, not a job's error
      expect(ctx.dump(scope.manage(k.getProp(ctx.global, 'got' as never)))).toBe(7)
      scope.dispose()
      k.close()
      ctx.dispose()
      rt.dispose()
    })
  }
})

describe('run_js: a call of a name the guest API does not have says which names exist', () => {
  it('vfs.ls, vfs.readFile, vfs["ls"], console.print, an unknown external_ tool; other errors unchanged', async () => {
    const vfs = await openVfs({ store: memoryStore(), namespace: 'names', scope: 's' })
    const runJs = createRunJs({ vfs, archiveDir: false, tools: { search: async () => 1 } })
    const vfsNames = 'vfs has read, readBytes, write, list, stat, exists, remove, glob, grep'
    const cases: Array<[string, { name: string; message: string; line?: number }]> = [
      [`const a = 1\nreturn await vfs.ls('/')`, { name: 'TypeError', message: `vfs.ls is not a function: ${vfsNames}`, line: 2 }],
      [`return (await vfs.readFile('/a.txt')).length`, { name: 'TypeError', message: `vfs.readFile is not a function: ${vfsNames}` }],
      [`await vfs.list('/')\nreturn vfs [ 'ls' ] ('/')`, { name: 'TypeError', message: `vfs.ls is not a function: ${vfsNames}`, line: 2 }],
      [`console.print('x')`, { name: 'TypeError', message: 'console.print is not a function: console has log, info, warn, error, debug' }],
      [
        `return external_serch({ q: 1 })`,
        { name: 'ReferenceError', message: "'external_serch' is not defined: the tools are external_search" },
      ],
      // Not a call of an unknown API name: QuickJS's own words.
      [`const f = undefined; return f()`, { name: 'TypeError', message: 'not a function' }],
      [`return null.x`, { name: 'TypeError', message: "cannot read property 'x' of null" }],
    ]
    for (const [program, error] of cases) {
      const r = await runJs.run(program)
      expect(r.success, program).toBe(false)
      expect(r.error, program).toMatchObject(error)
    }
    // Without tools the message says so.
    const bare = await createRunJs({ vfs, archiveDir: false }).run('return external_x()')
    expect(bare.error?.message).toBe("'external_x' is not defined: this run has no tools")
  })
})
