import { describe, expect, it } from 'vitest'
import { createRunJs, openVfs, scopeRun, type RunJsOptions, type Vfs } from '../../src/index.js'
import type { RunJsHarness } from './suite.js'

/**
 * ES-module imports from the workspace, the same in every runtime: skills as code, resolved through
 * the run's path policy, bounded, archived. The hostile cases (outside the roots, `..`, bare names,
 * URLs, cycles, depth, count, bytes) were written before the loader.
 */
export function describeRunJsImports(name: string, setup: () => Promise<RunJsHarness>): void {
  describe(`run_js imports: ${name}`, () => {
    let h: RunJsHarness | undefined
    let n = 0
    const harness = async () => (h ??= await setup())
    const open = async (): Promise<Vfs> =>
      openVfs({ store: (await harness()).store, namespace: 'imports', scope: `i${Date.now().toString(36)}${++n}`, autoRefresh: false })
    const runner = async (vfs: Vfs, options: Omit<RunJsOptions, 'vfs'> = {}) => {
      const x = await harness()
      // An executor's threads load ts-blank-space themselves (the default loader).
      const typescript = x.executor ? undefined : (x.typescript ?? false)
      return createRunJs({ vfs, engine: x.engine, typescript, executor: x.executor, ...options })
    }

    it('imports a skill by absolute path, and its own relative imports', async () => {
      const vfs = await open()
      await vfs.writeFile(
        '/skills/fountain.js',
        `import { words } from './lib/words.js'\nexport function parse(s) { return words(s).map(w => w.toUpperCase()) }`,
      )
      await vfs.writeFile('/skills/lib/words.js', `export const words = s => s.split(/\\s+/).filter(Boolean)`)
      const r = await (await runner(vfs)).run(`import { parse } from '/skills/fountain.js'\nreturn parse('int. house  day')`)
      expect(r.error).toBeUndefined()
      expect(r.result).toEqual(['INT.', 'HOUSE', 'DAY'])
    })

    it('keeps program line numbers in errors, imports hoisted from anywhere at the top level', async () => {
      const vfs = await open()
      await vfs.writeFile('/skills/a.js', `export const a = 1`)
      const r = await (await runner(vfs)).run(`const x = 1\nimport { a } from '/skills/a.js'\nif (a === x) throw new Error('line three')`)
      expect(r.error).toMatchObject({ name: 'Error', message: 'line three', line: 3 })
    })

    it('a TypeScript skill (.ts) is stripped of its types', async ctx => {
      const x = await harness()
      if (!x.typescript && !x.executor) return ctx.skip()
      const vfs = await open()
      await vfs.writeFile(
        '/skills/sum.ts',
        `export interface Row { n: number }\nexport const sum = (rows: Row[]): number => rows.reduce((a, r) => a + r.n, 0)`,
      )
      const r = await (
        await runner(vfs)
      ).run(`import { sum, type Row } from '/skills/sum.ts'\nconst rows: Row[] = [{ n: 2 }, { n: 40 }]\nreturn sum(rows)`)
      expect(r.error).toBeUndefined()
      expect(r.result).toBe(42)
      // The first load of the TypeScript loader through Vite's dev server took 10-60 s on a busy machine.
    }, 180_000)

    it('the modules are archived with the run', async () => {
      const vfs = await open()
      await vfs.writeFile('/skills/a.js', `export const a = 'A'`)
      const r = await (await runner(vfs)).run(`import { a } from '/skills/a.js'\nreturn a`)
      expect(r.result).toBe('A')
      const manifest = JSON.parse(await vfs.readFile(r.scriptPath!.replace(/\.js$/, '.modules.json'), 'utf8'))
      expect(manifest.modules).toEqual([{ path: '/skills/a.js', source: `export const a = 'A'`, bytes: 20 }])
    })

    it('a bare name resolves only through the import map', async () => {
      const vfs = await open()
      await vfs.writeFile('/skills/fountain.js', `export const hi = () => 'hi'`)
      const bare = `import { hi } from 'fountain'\nreturn hi()`
      const refused = await (await runner(vfs)).run(bare)
      expect(refused.error).toMatchObject({ name: 'ImportError', code: 'ENOENT' })
      expect(refused.error?.message).toMatch(/bare module names/)
      const mapped = await (await runner(vfs, { imports: { map: { fountain: '/skills/fountain.js' } } })).run(bare)
      expect(mapped).toMatchObject({ success: true, result: 'hi' })
    })

    it('dynamic import() of a literal works; of a computed name it is refused', async () => {
      const vfs = await open()
      await vfs.writeFile('/skills/a.js', `export const a = 7`)
      const run = await runner(vfs)
      expect(await run.run(`const m = await import('/skills/a.js'); return m.a`)).toMatchObject({ success: true, result: 7 })
      const computed = await run.run(
        `const p = '/skills/' + 'a.js'; try { await import(p); return 'loaded' } catch (e) { return e.message }`,
      )
      expect(computed.result).toMatch(/was not loaded/)
    })

    it('a skill written by one execution is imported by a later one (a fresh runner)', async () => {
      const vfs = await open()
      const first = await (
        await runner(vfs)
      ).run(`await vfs.write('/work/lib/slug.js', "export const slug = s => s.toLowerCase().replace(/[^a-z0-9]+/g, '-')"); return 'saved'`)
      expect(first.result).toBe('saved')
      const later = await (await runner(vfs)).run(`import { slug } from './work/lib/slug.js'\nreturn slug('Hello, World')`)
      expect(later).toMatchObject({ success: true, result: 'hello-world' })
    })

    describe('hostile imports', () => {
      it('outside the run scope’s roots: refused by the run’s path policy', async () => {
        const vfs = await open()
        await vfs.writeFile('/runs/other/work/steal.js', `export const s = 'secret'`)
        const run = scopeRun(vfs, { runId: 'r1' })
        const r = await (await runner(run)).run(`import { s } from '/runs/other/work/steal.js'\nreturn s`)
        expect(r.success).toBe(false)
        expect(r.error).toMatchObject({ name: 'ImportError' })
        expect(JSON.stringify(r)).not.toContain('secret')
      })

      it('outside the configured import roots: refused before anything is read', async () => {
        const vfs = await open()
        await vfs.writeFile('/work/x.js', `export const x = 1`)
        const r = await (await runner(vfs, { imports: { roots: ['/skills'] } })).run(`import { x } from '/work/x.js'\nreturn x`)
        expect(r.error).toMatchObject({ name: 'ImportError', code: 'EACCES' })
        expect(r.error?.message).toMatch(/only from \/skills/)
      })

      it('`..` traversal cannot climb out of the roots or above /', async () => {
        const vfs = await open()
        await vfs.writeFile('/work/x.js', `export const x = 1`)
        await vfs.writeFile('/skills/a.js', `export { x } from '../work/x.js'`)
        const rooted = await runner(vfs, { imports: { roots: ['/skills'] } })
        expect((await rooted.run(`import { x } from '/skills/../work/x.js'\nreturn x`)).error).toMatchObject({
          name: 'ImportError',
          code: 'EACCES',
        })
        expect((await rooted.run(`import { x } from '/skills/a.js'\nreturn x`)).error).toMatchObject({
          name: 'ImportError',
          code: 'EACCES',
        })
        const above = await (await runner(vfs)).run(`import { x } from '../../work/x.js'\nreturn x`)
        expect(above.error).toMatchObject({ name: 'ImportError', code: 'EACCES' })
        expect(above.error?.message).toMatch(/above the workspace root/)
      })

      it('URLs, node: and data: specifiers are refused (no network)', async () => {
        const run = await runner(await open())
        for (const spec of ['https://example.com/x.js', 'node:fs', 'data:text/javascript,export default 1', '//example.com/x.js']) {
          const r = await run.run(`import x from '${spec}'\nreturn x`)
          expect(r.error, spec).toMatchObject({ name: 'ImportError', code: 'EACCES' })
        }
        const dynamic = await run.run(
          `try { await import('https://example.com/x.js'); return 'loaded' } catch (e) { return e.name + ': ' + e.message }`,
        )
        expect(dynamic.result).toMatch(/no network/)
      })

      it('a cycle loads each module once and works', async () => {
        const vfs = await open()
        await vfs.writeFile('/skills/even.js', `import { odd } from './odd.js'\nexport const even = n => n === 0 || odd(n - 1)`)
        await vfs.writeFile('/skills/odd.js', `import { even } from './even.js'\nexport const odd = n => n !== 0 && even(n - 1)`)
        const r = await (await runner(vfs)).run(`import { even } from '/skills/even.js'\nreturn [even(10), even(7)]`)
        expect(r.result).toEqual([true, false])
      })

      it('imports deeper than limits.importDepth fail with a clear error', async () => {
        const vfs = await open()
        for (let i = 0; i < 6; i++) await vfs.writeFile(`/skills/d${i}.js`, `export * from './d${i + 1}.js'`)
        await vfs.writeFile('/skills/d6.js', `export const bottom = true`)
        const r = await (await runner(vfs, { limits: { importDepth: 4 } })).run(`import { bottom } from '/skills/d0.js'\nreturn bottom`)
        expect(r.error).toMatchObject({ name: 'ImportError', code: 'E2BIG' })
        expect(r.error?.message).toMatch(/limits\.importDepth/)
        expect(await (await runner(vfs)).run(`import { bottom } from '/skills/d0.js'\nreturn bottom`)).toMatchObject({ result: true })
      })

      it('more modules than limits.modules, or more bytes than limits.moduleBytes, fail with E2BIG', async () => {
        const vfs = await open()
        const lines = Array.from({ length: 5 }, (_, i) => `import './m${i}.js'`).join('\n')
        for (let i = 0; i < 5; i++) await vfs.writeFile(`/skills/m${i}.js`, `export const v = '${'x'.repeat(1000)}'`)
        await vfs.writeFile('/skills/all.js', lines)
        const count = await (await runner(vfs, { limits: { modules: 3 } })).run(`import '/skills/all.js'\nreturn 1`)
        expect(count.error).toMatchObject({ name: 'ImportError', code: 'E2BIG' })
        expect(count.error?.message).toMatch(/limits\.modules/)
        const bytes = await (await runner(vfs, { limits: { moduleBytes: 3000 } })).run(`import '/skills/all.js'\nreturn 1`)
        expect(bytes.error?.message).toMatch(/limits\.moduleBytes/)
      })

      it('a module that is not .js/.ts, or does not exist, fails as ImportError', async () => {
        const vfs = await open()
        await vfs.writeFile('/skills/data.json', `{"a":1}`)
        const run = await runner(vfs)
        expect((await run.run(`import d from '/skills/data.json'\nreturn d`)).error).toMatchObject({ name: 'ImportError', code: 'EINVAL' })
        expect((await run.run(`import d from '/skills/missing.js'\nreturn d`)).error).toMatchObject({ name: 'ImportError', code: 'ENOENT' })
      })

      it('a module whose top level loops forever is stopped by the deadline', async () => {
        const vfs = await open()
        await vfs.writeFile('/skills/spin.js', `while (true) {}\nexport const x = 1`)
        const r = await (await runner(vfs, { limits: { timeMs: 300 } })).run(`import { x } from '/skills/spin.js'\nreturn x`)
        expect(r.success).toBe(false)
        expect(await (await runner(vfs)).run('return 2')).toMatchObject({ result: 2 })
      }, 30_000)
    })
  })
}
