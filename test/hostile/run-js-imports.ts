import { afterAll, describe, expect, it } from 'vitest'
import { createRunJs, openVfs, type RunJsOptions, type Vfs } from '../../src/index.js'
import type { RunJsHarness } from '../run-js/suite.js'

/** A busy wait: host work that blocks the thread, as a slow store or a huge module would. */
function block(ms: number): void {
  const end = Date.now() + ms
  while (Date.now() < end) {
    // spin
  }
}

/** The workspace as run_js sees it, with its `readFile` calls counted (and, if asked, made slow). */
function countingReads(vfs: Vfs, eachRead?: () => void): { vfs: Vfs; reads: () => number } {
  let reads = 0
  const counted = new Proxy(vfs, {
    get(target, key) {
      const value = Reflect.get(target, key, target) as unknown
      if (typeof value !== 'function') return value
      if (key !== 'readFile') return value.bind(target)
      return (...args: unknown[]) => {
        reads++
        eachRead?.()
        return value.apply(target, args)
      }
    },
  })
  return { vfs: counted, reads: () => reads }
}

/**
 * Issue 27, case 7 (imports): the imports read ahead of a program are its time and are bounded.
 * Written before the fix, which they failed: 40,000 `if (never) await import(…)` lines made the host
 * read every one of them ahead (12.3 s under a 2 s limit), and reads that never yield to the event
 * loop ran past the deadline.
 */
export function describeRunJsImportsHostile(name: string, setup: () => Promise<RunJsHarness>): void {
  describe(`run_js imports, hostile program: ${name}`, () => {
    let h: RunJsHarness | undefined
    let n = 0
    const harness = async () => (h ??= await setup())
    afterAll(async () => h?.cleanup?.())
    const open = async (): Promise<Vfs> =>
      openVfs({
        store: (await harness()).store,
        namespace: 'imports-hostile',
        scope: `h${Date.now().toString(36)}${++n}`,
        autoRefresh: false,
      })
    const runner = async (vfs: Vfs, options: Omit<RunJsOptions, 'vfs'> = {}) => {
      const x = await harness()
      return createRunJs({ vfs, engine: x.engine, typescript: false, executor: x.executor, ...options })
    }

    it('thousands of dynamic imports never reached: at most limits.modules are read ahead, and the deadline holds', async () => {
      const { vfs, reads } = countingReads(await open())
      const lines = Array.from({ length: 1000 }, (_, i) => `if (never) await import('/skills/m${i}.js')`)
      const program = `const never = globalThis.reached === true\n${lines.join('\n')}\nwhile (true) {}`
      const run = await runner(vfs, { limits: { timeMs: 1000, modules: 16 } })
      const r = await run.run(program)
      run.close()
      expect(r.error?.name).toBe('TimeoutError')
      expect(reads()).toBeLessThanOrEqual(16)
    }, 60_000)

    it('a dynamic import past the read-ahead bound fails when the program reaches it, saying why', async () => {
      const base = await open()
      for (let i = 0; i < 4; i++) await base.writeFile(`/skills/k${i}.js`, `export const v = ${i}`)
      const { vfs, reads } = countingReads(base)
      const lines = Array.from({ length: 4 }, (_, i) => `out.push((await import('/skills/k${i}.js')).v)`)
      const program = `const out = []\ntry {\n${lines.join('\n')}\n} catch (e) { out.push(e.name + ': ' + e.message) }\nreturn out`
      const run = await runner(vfs, { limits: { modules: 2 } })
      const r = await run.run(program)
      run.close()
      expect(r.result).toEqual([0, 1, expect.stringMatching(/^ImportError: .*limits\.modules/)])
      expect(reads()).toBe(2)
    })

    it('a program holding more imports than the scan takes fails with E2BIG before anything is read', async () => {
      const { vfs, reads } = countingReads(await open())
      const lines = Array.from({ length: 300 }, () => `if (never) await import('/skills/a.js')`)
      const run = await runner(vfs, { limits: { modules: 4 } })
      const r = await run.run(`const never = false\n${lines.join('\n')}\nreturn 'ran'`)
      run.close()
      expect(r.error).toMatchObject({ name: 'ImportError', code: 'E2BIG' })
      expect(r.error?.message).toMatch(/imports/)
      expect(reads()).toBe(0)
    })

    it('host time spent reading modules ahead counts against the deadline', async () => {
      const base = await open()
      for (let i = 0; i < 30; i++) await base.writeFile(`/skills/s${i}.js`, `export const v = ${i}`)
      // Each read blocks the host for 100 ms without yielding: 30 reads would take 3 s of a 500 ms run.
      const { vfs, reads } = countingReads(base, () => block(100))
      const imports = Array.from({ length: 30 }, (_, i) => `import { v as v${i} } from '/skills/s${i}.js'`)
      const run = await runner(vfs, { limits: { timeMs: 500 } })
      const r = await run.run(`${imports.join('\n')}\nreturn v0`)
      run.close()
      expect(r.error?.name).toBe('TimeoutError')
      expect(reads()).toBeLessThan(30)
    }, 60_000)
  })
}
