import { describe, expect, it } from 'vitest'
import { createRunJs, openVfs, type RunJsOptions, type RunJsResult, type Vfs } from '../../src/index.js'
import type { RunJsHarness } from '../run-js/suite.js'

/** Depth of the deepest array/object nesting in a value (iteratively: the value may be very deep). */
function depthOf(value: unknown): number {
  let max = 0
  const stack: Array<[unknown, number]> = [[value, 1]]
  while (stack.length) {
    const [v, d] = stack.pop()!
    if (v === null || typeof v !== 'object') continue
    max = Math.max(max, d)
    for (const child of Object.values(v as object)) stack.push([child, d + 1])
  }
  return max
}

/** What a host must always be able to do with a run's result: it is plain, bounded data. */
function expectPlain(r: RunJsResult): void {
  expect(typeof r.success).toBe('boolean')
  expect(depthOf(r)).toBeLessThan(1100)
  expect(() => JSON.stringify(r)).not.toThrow()
}

/** A busy wait: host work that blocks the thread, as a catastrophic regex in the host would. */
function block(ms: number): void {
  const end = Date.now() + ms
  while (Date.now() < end) {
    // spin
  }
}

/**
 * Attacks on run_js from the guest: replacing the built-ins the bridge relies on, feeding the host
 * deep or huge values, many concurrent host calls, host work past the deadline, huge programs.
 * Every case must end as a result (never a throw from `run`), with plain bounded data.
 */
export function describeRunJsHostile(name: string, setup: () => Promise<RunJsHarness>): void {
  describe(`run_js hostile guests: ${name}`, () => {
    let h: RunJsHarness | undefined
    let n = 0
    const harness = async () => (h ??= await setup())
    const open = async (): Promise<Vfs> =>
      openVfs({
        store: (await harness()).store,
        namespace: 'hostile',
        scope: `h${Date.now().toString(36)}${++n}`,
        autoRefresh: false,
      })
    const runner = async (vfs: Vfs, options: Omit<RunJsOptions, 'vfs'> = {}) => {
      const x = await harness()
      return createRunJs({ vfs, engine: x.engine, typescript: false, ...options })
    }

    describe('built-ins the guest replaces do not reach the host', () => {
      const deep = `'['.repeat(10000) + ']'.repeat(10000)`
      // Each program returns a known value: a run may fail, but never succeed with a forged result.
      const attacks: Record<string, [string, unknown]> = {
        'Promise.prototype.then': [
          `const then = Promise.prototype.then
          Promise.prototype.then = function (ok, bad) { return then.call(this, () => ok ? ok(${deep}) : undefined, bad) }
          return 1`,
          1,
        ],
        'Promise.prototype.then handing over a deep string directly': [
          `const then = Promise.prototype.then
          Promise.prototype.then = function () { return then.call(Promise.resolve(${deep}), (x) => x) }
          return 1`,
          1,
        ],
        'Promise.prototype.constructor': [
          `class P extends Promise { then(ok, bad) { return super.then(() => ok && ok(${deep}), bad) } }
          Promise.prototype.constructor = P; Object.defineProperty(Promise, Symbol.species, { value: P }); return 1`,
          1,
        ],
        'JSON.stringify': [`JSON.stringify = () => ${deep}; return { a: 1 }`, { a: 1 }],
        'JSON.parse': [`JSON.parse = () => { let a = []; for (let i = 0; i < 10000; i++) a = [a]; return a }; return { a: 1 }`, { a: 1 }],
        'Array and Object methods': [
          `Array.prototype.map = Array.prototype.join = Array.prototype.push = function () { throw new Error('no') }
          Object.defineProperty = Object.freeze = Object.getPrototypeOf = function () { throw new Error('no') }
          Function.prototype.call = Function.prototype.apply = function () { throw new Error('no') }
          return { a: [1, 2] }`,
          { a: [1, 2] },
        ],
        Symbol: [`globalThis.Symbol = function () { throw new Error('no') }; return { a: 1 }`, { a: 1 }],
      }
      for (const [what, [program, expected]] of Object.entries(attacks)) {
        it(`${what}: the run ends with plain bounded data and no forged result`, async () => {
          // A generous inline limit: the result is parsed on the host, not archived.
          const r = await (await runner(await open(), { limits: { inlineResultChars: 1_000_000 } })).run(program)
          expectPlain(r)
          if (r.success) expect(r.result).toEqual(expected)
        }, 30_000)
      }

      it('the guest API keeps working after the guest replaced everything it could', async () => {
        const vfs = await open()
        await vfs.writeFile('/in.txt', 'hello')
        const s: unknown[] = []
        const r = await (
          await runner(vfs, { archiveDir: false, tools: { echo: async (i: unknown) => (s.push(i), { got: i }) } })
        ).run(`
          const then = Promise.prototype.then
          JSON.stringify = () => '"forged"'; JSON.parse = () => 'forged'
          Object.getPrototypeOf = () => null; Object.defineProperty = () => {}; Object.freeze = (o) => o
          Array.prototype.join = () => 'forged'; Array.prototype.push = () => 0; String.prototype.charCodeAt = () => 1
          String.fromCharCode = () => 'forged'; Function.prototype.apply = () => 'forged'; Function.prototype.call = () => 'forged'
          const text = await vfs.read('/in.txt')
          await vfs.write('/out.json', { a: [1, 'two'] })
          const listed = await vfs.list('/')
          const echoed = await external_echo({ n: 1 })
          console.log('x', { y: 1 })
          return { text, listed, echoed }`)
        expect(r.error).toBeUndefined()
        expect(r.result).toEqual({ text: 'hello', listed: ['in.txt', 'out.json'], echoed: { got: { n: 1 } } })
        expect(r.logs).toEqual(['x {"y":1}'])
        expect(await vfs.readFile('/out.json', 'utf8')).toBe('{"a":[1,"two"]}')
        expect(s).toEqual([{ n: 1 }])
      }, 30_000)

      it('vfs and console are made on first read, from what the guest could not replace', async () => {
        const vfs = await open()
        await vfs.writeFile('/in.txt', 'hello')
        const r = await (
          await runner(vfs, { archiveDir: false })
        ).run(`
          const { isFrozen, getOwnPropertyDescriptor: own } = Object
          const trap = { set() { throw new Error('trapped') }, get() { return () => 'forged' }, configurable: true }
          for (const k of ['read', 'write', 'list', 'log', 'error']) Object.defineProperty(Object.prototype, k, trap)
          Object.freeze = (o) => o; Object.defineProperty = () => {}
          let replaced
          try { Reflect.defineProperty(globalThis, 'vfs', { value: { read: () => 'forged' } }) ? (replaced = 'vfs') : 0 } catch (e) { replaced = 'threw' }
          globalThis.console = { log() {} }
          const d = own(globalThis, 'vfs')
          const text = await vfs.read('/in.txt')
          console.log('seen')
          return { text, replaced: replaced ?? false, same: vfs === vfs && console === console, frozen: [isFrozen(vfs), isFrozen(console)],
            own: [own(vfs, 'read').writable, own(vfs, 'read').configurable, own(console, 'log').writable],
            descriptor: [d.configurable, d.enumerable, typeof d.get, typeof d.set], keys: Object.keys(vfs).length }`)
        expect(r.error).toBeUndefined()
        expect(r.result).toEqual({
          text: 'hello',
          replaced: false,
          same: true,
          frozen: [true, true],
          own: [false, false, false],
          descriptor: [false, false, 'function', 'undefined'],
          keys: 9,
        })
        expect(r.logs).toEqual(['seen'])
      }, 30_000)
    })

    describe('what a tool hands back cannot break the runner', () => {
      const hostile: Record<string, () => unknown> = {
        'a 10,000-deep object': () => {
          let a: unknown = []
          for (let i = 0; i < 10_000; i++) a = [a]
          return a
        },
        'a getter that throws': () => ({
          get x() {
            throw new Error('gotcha')
          },
        }),
        'a toJSON that throws': () => ({
          toJSON: () => {
            throw new Error('gotcha')
          },
        }),
        'a Proxy that throws on every access': () =>
          new Proxy(
            {},
            {
              get: () => {
                throw new Error('gotcha')
              },
              ownKeys: () => {
                throw new Error('gotcha')
              },
            },
          ),
        'a thrown Proxy': () => {
          throw new Proxy(
            {},
            {
              get: () => {
                throw new Error('gotcha')
              },
            },
          )
        },
        'a thrown error whose message getter throws': () => {
          const e = new Error('x')
          Object.defineProperty(e, 'message', {
            get: () => {
              throw new Error('gotcha')
            },
          })
          throw e
        },
        'a thrown null': () => {
          throw null
        },
        'a synchronous throw': () => {
          throw new RangeError('sync')
        },
        'a BigInt': () => 10n,
      }
      for (const [what, tool] of Object.entries(hostile)) {
        it(`${what}: a guest error, and the next run works`, async () => {
          const run = await runner(await open(), { tools: { t: tool } })
          const r = await run.run(`try { await external_t({}); return 'returned' } catch (e) { return 'caught ' + e.name }`)
          expectPlain(r)
          expect(r.success).toBe(true)
          expect(String(r.result)).toMatch(/^caught |^returned$/)
          expect(await run.run('return 1 + 1')).toMatchObject({ success: true, result: 2 })
        }, 30_000)
      }
    })

    describe('many host calls at once', () => {
      it('Promise.all over 50,000 vfs.exists succeeds without engine errors', async () => {
        const vfs = await open()
        await vfs.writeFile('/a.txt', 'a')
        const errors: string[] = []
        const original = console.error
        console.error = (...args: unknown[]) => void errors.push(args.map(String).join(' '))
        try {
          const run = await runner(vfs, { limits: { timeMs: 60_000 } })
          const r = await run.run(
            `const r = await Promise.all(Array.from({ length: 50000 }, (_, i) => vfs.exists(i % 2 ? '/a.txt' : '/b.txt'))); return [r.length, r.filter(Boolean).length]`,
          )
          expect(r.error).toBeUndefined()
          expect(r.result).toEqual([50000, 25000])
          expect(await run.run('return 3')).toMatchObject({ success: true, result: 3 })
        } finally {
          console.error = original
        }
        expect(errors.filter(e => /Assertion|Aborted|detached|C to host/.test(e))).toEqual([])
      }, 120_000)

      it('50,000 concurrent tool calls succeed', async () => {
        const run = await runner(await open(), {
          tools: { inc: async (i: unknown) => (i as number) + 1 },
          limits: { timeMs: 60_000 },
        })
        const r = await run.run(
          `const r = await Promise.all(Array.from({ length: 50000 }, (_, i) => external_inc(i))); return r.reduce((a, b) => a + b, 0)`,
        )
        expect(r.error).toBeUndefined()
        expect(r.result).toBe((50000 * 50001) / 2)
      }, 120_000)
    })

    describe('host work counts against the deadline', () => {
      it('a host call that blocks past the deadline never ends as success', async () => {
        const base = await open()
        await base.writeFile('/f.txt', 'a'.repeat(30) + '!')
        const slow = new Proxy(base, {
          get(target, key) {
            if (key === 'grep') return async () => (block(600), { matches: [], truncated: false, filesSearched: 1 })
            const value: unknown = Reflect.get(target, key, target)
            return typeof value === 'function' ? value.bind(target) : value
          },
        })
        const run = await runner(slow, { limits: { timeMs: 200 } })
        const r = await run.run(`const g = await vfs.grep('(a+)+$', { regex: true }); return g.matches.length`)
        expect(r.success).toBe(false)
        expect(r.error?.name).toBe('TimeoutError')
      }, 30_000)

      it('a tool that blocks past the deadline never ends as success', async () => {
        const run = await runner(await open(), { tools: { slow: () => (block(600), 1) }, limits: { timeMs: 200 } })
        const r = await run.run(`return await external_slow({})`)
        expect(r.success).toBe(false)
        expect(r.error?.name).toBe('TimeoutError')
      }, 30_000)

      it("workspace searches get the run's signal and deadline", async () => {
        const base = await open()
        await base.writeFile('/f.txt', 'x')
        const seen: Array<{ signal?: unknown; deadline?: unknown }> = []
        const spy = new Proxy(base, {
          get(target, key) {
            if (key === 'grep' || key === 'glob') {
              return (pattern: string, options: Record<string, unknown> = {}) => {
                seen.push({ signal: options.signal, deadline: options.deadline })
                return (target[key] as (p: string, o: unknown) => unknown)(pattern, options)
              }
            }
            const value: unknown = Reflect.get(target, key, target)
            return typeof value === 'function' ? value.bind(target) : value
          },
        })
        const t0 = Date.now()
        const r = await (await runner(spy, { limits: { timeMs: 5_000 } })).run(`await vfs.grep('x'); await vfs.glob('/*'); return 1`)
        expect(r.result).toBe(1)
        expect(seen).toHaveLength(2)
        for (const s of seen) {
          expect(s.signal).toBeInstanceOf(AbortSignal)
          expect(typeof s.deadline).toBe('number')
          expect(s.deadline as number).toBeLessThanOrEqual(t0 + 5_000 + 1000)
          expect(s.deadline as number).toBeGreaterThan(t0)
        }
        expect(seen.every(s => (s.signal as AbortSignal).aborted)).toBe(true) // the run is over
      })
    })

    describe('sizes a guest chooses are capped', () => {
      it('a program over the size cap is refused at once, before it is compiled or archived', async () => {
        const vfs = await open()
        const program = `return ${JSON.stringify('x'.repeat(15 * 1024 * 1024))}.length`
        const t0 = performance.now()
        const r = await (await runner(vfs)).run(program)
        expect(performance.now() - t0).toBeLessThan(1000)
        expect(r.success).toBe(false)
        expect(r.error).toMatchObject({ name: 'RangeError', code: 'E2BIG' })
        expect(r.error?.message).toMatch(/program is too large/)
        expect(await vfs.exists('/.run_js')).toBe(false)
      }, 30_000)

      it('a guest→host argument over the cap is a guest RangeError E2BIG, nothing written', async () => {
        const vfs = await open()
        const r = await (
          await runner(vfs, { limits: { memoryBytes: 32 * 1024 * 1024 } })
        ).run(`
          const big = 'y'.repeat(9 * 1024 * 1024)
          const out = []
          for (const f of [() => vfs.write('/big.txt', big), () => vfs.write('/big.json', { big })]) {
            try { await f(); out.push('ok') } catch (e) { out.push(e.name + ' ' + e.code) }
          }
          return out`)
        expect(r.error).toBeUndefined()
        // Building the JSON of a value that large may itself run out of the guest's memory first.
        const [plain, asJson] = r.result as string[]
        expect(plain).toBe('RangeError E2BIG')
        expect(asJson).toMatch(/^RangeError E2BIG$|^InternalError/)
        expect(await vfs.exists('/big.txt')).toBe(false)
        expect(await vfs.exists('/big.json')).toBe(false)
      }, 30_000)
    })
  })
}
