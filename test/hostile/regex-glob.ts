import { describe, expect, it } from 'vitest'
import { isVfsError, openVfs, scopeRun, type Vfs, type VfsStore } from '../../src/index.js'
import { MAX_GREP_CONTEXT, MAX_GREP_MATCHES, MAX_GREP_PATHS, MAX_PATTERN_LENGTH, WALK_CHECK_EVERY } from '../../src/internal.js'
import { createWorkspaceTools, ToolError } from '../../src/agent/index.js'

/** How a runtime provides a fresh, empty store for one test. */
export type OpenStore = () => VfsStore | Promise<VfsStore>

/**
 * Regexes and globs written by a model, a guest or a request are hostile: they must run in linear
 * time, every option a caller chooses has a cap, and searches over huge trees stop at their limit
 * with a truncated result. Shared by the Node, browser and workerd test files.
 *
 * Time bounds here are generous behaviour checks (each case takes minutes or hours on a
 * backtracking engine), not speed goals.
 */
export function describeHostileRegexGlob(runtime: string, openStore: OpenStore): void {
  let n = 0
  const open = async (): Promise<Vfs> =>
    openVfs({ store: await openStore(), namespace: 'hostile', scope: `rx-${++n}-${Date.now().toString(36)}`, autoRefresh: false })
  const quick = async <T>(label: string, fn: () => Promise<T>): Promise<T> => {
    const started = Date.now()
    const out = await fn()
    expect(Date.now() - started, `${label} took too long`).toBeLessThan(2_000)
    return out
  }
  const codeOf = (p: Promise<unknown>) =>
    p.then(
      () => 'resolved',
      (e: unknown) => (isVfsError(e) ? e.code : String(e)),
    )

  /** A tree of `count` files (`/big/dNNN/fNNNN.txt`, each 'needle\n'), committed in one batch. */
  const bigTree = async (count: number): Promise<Vfs> => {
    const store = await openStore()
    const scope = `big-${++n}-${Date.now().toString(36)}`
    const data = new TextEncoder().encode('needle\n')
    const ops = []
    for (let i = 0; i < count; i++) {
      ops.push({
        op: 'put' as const,
        path: `/big/d${String(i % 100).padStart(3, '0')}/f${String(i).padStart(6, '0')}.txt`,
        kind: 'file' as const,
        data,
        mtime: 0,
        ctime: 0,
        expectedVersion: null,
      })
    }
    await store.commit('hostile', scope, ops)
    return openVfs({ store, namespace: 'hostile', scope, autoRefresh: false })
  }

  describe(`hostile regexes and globs: ${runtime}`, () => {
    it('catastrophic regexes from the issue run in linear time', async () => {
      const vfs = await open()
      await vfs.writeFile('/work/a.txt', 'a'.repeat(20_000) + '!\n' + 'a'.repeat(20_000) + '\n')
      for (const pattern of ['(a+)+$', '(a+){9}$', '((a|a))*$', '(?:(?:a|a))*$', '\\w*\\w*\\w*\\w*\\w*!', '(a|aa)+$', '(a*)*b']) {
        const r = await quick(pattern, () => vfs.grep(pattern, { regex: true }))
        // Every pattern here matches the second line (or neither) — what matters is that it returns.
        expect(r.filesSearched).toBe(1)
      }
      const r = await quick('ignoreCase', () => vfs.grep('(A+)+!', { regex: true, ignoreCase: true }))
      expect(r.matches.map(m => [m.line, m.column])).toEqual([[1, 1]])
    })

    it('a generated family of nested quantifiers completes quickly over long lines', async () => {
      const vfs = await open()
      const long = 'a'.repeat(5_000)
      await vfs.writeFile('/work/long.txt', `${long}!\n${long}\n${'ab'.repeat(2_500)}x\n`)
      const atoms = ['a', 'a?', 'a+', '(?:a|a)', '(?:a|aa)', '[ab]', '\\w', '.']
      const outer = ['*', '+', '{2,}', '{1,30}']
      let cases = 0
      for (const atom of atoms) {
        for (const q1 of ['+', '*']) {
          for (const q2 of outer) {
            for (const tail of ['$', 'b$', '!x']) {
              const pattern = `((?:${atom})${q1})${q2}${tail}`
              cases++
              await quick(pattern, () => vfs.grep(pattern, { regex: true, maxMatches: 5 }))
            }
          }
        }
      }
      for (let depth = 2; depth <= 6; depth++) {
        const pattern = '('.repeat(depth) + 'a+' + ')+'.repeat(depth) + 'c'
        cases++
        await quick(pattern, () => vfs.grep(pattern, { regex: true }))
      }
      expect(cases).toBe(atoms.length * 2 * outer.length * 3 + 5)
    })

    it('grep finds the right lines and columns with the linear engine', async () => {
      const vfs = await open()
      await vfs.writeFile('/work/s.md', 'INT. HOUSE - DAY\nfoo bar\r\nEXT. ROAD - NIGHT\nnothing\n')
      const r = await vfs.grep('^(INT|EXT)\\. .* - (DAY|NIGHT)$', { regex: true, context: 1 })
      expect(r.matches.map(m => [m.line, m.column, m.text])).toEqual([
        [1, 1, 'INT. HOUSE - DAY'],
        [3, 1, 'EXT. ROAD - NIGHT'],
      ])
      expect(r.matches[1].before).toEqual(['foo bar'])
      // `$` before a Windows line break, columns in UTF-16 units, Unicode classes.
      expect((await vfs.grep('bar$', { regex: true })).matches.map(m => m.line)).toEqual([2])
      await vfs.writeFile('/work/u.txt', 'héllo wörld 🙂 Straße\n')
      expect((await vfs.grep('w\\p{L}rld', { regex: true })).matches[0].column).toBe(7)
      expect((await vfs.grep('STRASSE', { ignoreCase: true })).matches).toEqual([]) // simple case folding only
      expect((await vfs.grep('straße', { ignoreCase: true })).matches[0].column).toBe(16)
    })

    it('a large pattern over a long line stays bounded, and the column is right', async () => {
      const vfs = await open()
      await vfs.writeFile('/work/one-line.txt', 'a'.repeat(200_000) + '!\n')
      for (const [pattern, column] of [
        ['[ab]{999}!', 199_002],
        ['(?:a|b){500}!', 199_501],
        ['(?i)A{900}!', 199_101],
        ['a.*!', 1],
        ['a{3}', 1],
      ] as const) {
        const r = await quick(pattern, () => vfs.grep(pattern, { regex: true }))
        expect(
          r.matches.map(m => m.column),
          pattern,
        ).toEqual([column])
      }
    })

    it('required strings on every line, or on none, stay bounded (grep tests only lines that hold them)', async () => {
      const vfs = await open()
      // 2 MiB of 4-character lines that all hold `a` and `b`: every line is a candidate, none matches.
      await vfs.writeFile('/work/every.txt', 'a b\n'.repeat(1 << 19))
      // One 2 MiB line, wider than the window grep lists candidates in, holding the strings at both ends.
      await vfs.writeFile('/work/wide.txt', 'ab ' + 'x'.repeat(2 << 20) + ' abc!\n')
      for (const [pattern, want] of [
        ['a.*c|b\\s+c', [['/work/wide.txt', 1]]],
        ['a\\s*c|b\\s+c', []],
        ['(?:a|b)\\w*!|abc\\s*!', [['/work/wide.txt', 1]]],
        ['(?:a b){2}', []],
      ] as const) {
        const r = await quick(pattern, () => vfs.grep(pattern, { regex: true }))
        expect(
          r.matches.map(m => [m.path, m.line]),
          pattern,
        ).toEqual(want)
      }
      // maxMatches still caps a search over candidates.
      const capped = await vfs.grep('a\\s+b', { regex: true, paths: ['/work/every.txt'], maxMatches: 10 })
      expect(capped).toMatchObject({ truncated: true })
      expect(capped.matches.map(m => m.line)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10])
    })

    it('syntax a linear engine cannot run is EINVAL with a hint', async () => {
      const vfs = await open()
      await vfs.writeFile('/work/a.txt', 'aa\n')
      for (const pattern of ['(a)\\1', 'a(?=b)', 'a(?!b)', '(?<=a)b', '(?<!a)b', '(', 'a{2,1}', '\\k<x>']) {
        const error = await vfs.grep(pattern, { regex: true }).then(
          () => undefined,
          (e: unknown) => e,
        )
        expect(isVfsError(error) && error.code, pattern).toBe('EINVAL')
        expect((error as Error).message, pattern).toMatch(/RE2|regular expression/)
      }
    })

    it('globs with many stars and braces over long names run in linear time', async () => {
      const vfs = await open()
      const name = 'a'.repeat(250)
      await vfs.writeFile(`/work/${name}`, 'x')
      await vfs.writeFile(`/work/deep/er/${name}.md`, 'x')
      for (const pattern of [
        '/work/*a*a*a*a*a*b',
        '/work/**/*a*a*a*a*a*a*a*a*a*a*b',
        '**/*a*a*a*a*a*a*a*a*a*a*a*a*.txt',
        '/work/{a,a*}{a,a*}{a,a*}{a,a*}{a,a*}{a,a*}b',
        '/**/**/**/**/**/**/**/**/x',
      ]) {
        expect(await quick(pattern, () => vfs.glob(pattern)), pattern).toEqual([])
      }
      expect(await quick('match', () => vfs.glob('/work/**/*a*a*a*a*a*.md'))).toEqual([`/work/deep/er/${name}.md`])
      expect(await vfs.glob('/work/?' + '*'.repeat(40))).toEqual([`/work/${name}`])
    })

    it('glob keeps its documented syntax', async () => {
      const vfs = await open()
      for (const p of [
        '/c/.hidden.md',
        '/c/ep/01.md',
        '/c/ep/02.md',
        '/c/ep/x/03.md',
        '/w/a.txt',
        '/w/b.dat',
        '/w/c.js',
        '/w/(x)+.txt',
        '/w/!y.txt',
      ])
        await vfs.writeFile(p, 'x')
      expect(await vfs.glob('**/*.md')).toEqual(['/c/.hidden.md', '/c/ep/01.md', '/c/ep/02.md', '/c/ep/x/03.md'])
      expect(await vfs.glob('/c/**')).toEqual(['/c/.hidden.md', '/c/ep/01.md', '/c/ep/02.md', '/c/ep/x/03.md'])
      expect(await vfs.glob('/c/**/0?.md')).toEqual(['/c/ep/01.md', '/c/ep/02.md', '/c/ep/x/03.md'])
      expect(await vfs.glob('/c/ep/0[12].md')).toEqual(['/c/ep/01.md', '/c/ep/02.md'])
      expect(await vfs.glob('/c/ep/0[!1].md')).toEqual(['/c/ep/02.md'])
      expect(await vfs.glob('/w/*.{txt,dat}')).toEqual(['/w/!y.txt', '/w/(x)+.txt', '/w/a.txt', '/w/b.dat'])
      expect(await vfs.glob('/w/{a.*,c.{js,ts}}')).toEqual(['/w/a.txt', '/w/c.js'])
      expect(await vfs.glob('/w/(x)+.txt')).toEqual(['/w/(x)+.txt'])
      expect(await vfs.glob('//w/./*.js')).toEqual(['/w/c.js'])
      expect(await vfs.glob('c/ep/')).toEqual([])
      expect(await vfs.glob('c/ep/', { includeDirs: true })).toEqual(['/c/ep'])
      expect(await vfs.glob('/c/*', { includeDirs: true })).toEqual(['/c/.hidden.md', '/c/ep'])
      expect(await vfs.glob('/c/**', { includeDirs: true })).toContain('/c/ep/x')
      expect(await codeOf(vfs.glob('/w/[a'))).toBe('EINVAL')
      expect(await codeOf(vfs.glob('/w/{a,b'))).toBe('EINVAL')
    })

    it('every size a caller chooses has a cap; nonsense is EINVAL', async () => {
      const vfs = await open()
      await vfs.writeFile('/work/a.txt', 'a\n')
      const bad: Array<[string, () => Promise<unknown>]> = [
        ['context 1e9', () => vfs.grep('a', { context: 1e9 })],
        [`context ${MAX_GREP_CONTEXT + 1}`, () => vfs.grep('a', { context: MAX_GREP_CONTEXT + 1 })],
        ['context -1', () => vfs.grep('a', { context: -1 })],
        ['context NaN', () => vfs.grep('a', { context: NaN })],
        ['context "3"', () => vfs.grep('a', { context: '3' as unknown as number })],
        ['context 1.5', () => vfs.grep('a', { context: 1.5 })],
        [`maxMatches ${MAX_GREP_MATCHES + 1}`, () => vfs.grep('a', { maxMatches: MAX_GREP_MATCHES + 1 })],
        ['maxMatches 0', () => vfs.grep('a', { maxMatches: 0 })],
        ['maxMatches Infinity', () => vfs.grep('a', { maxMatches: Infinity })],
        ['pattern too long', () => vfs.grep('a'.repeat(MAX_PATTERN_LENGTH + 1))],
        ['regex too long', () => vfs.grep('a'.repeat(MAX_PATTERN_LENGTH + 1), { regex: true })],
        ['glob too long', () => vfs.glob('/work/' + '*'.repeat(MAX_PATTERN_LENGTH))],
        ['too many paths', () => vfs.grep('a', { paths: Array.from({ length: MAX_GREP_PATHS + 1 }, () => '/work') })],
        ['paths not an array', () => vfs.grep('a', { paths: '/work' as unknown as string[] })],
        ['a regex with a huge program', () => vfs.grep('((((a{100}){100}){100}){100})', { regex: true })],
        ['walk limit -1', () => vfs.walk('/**', { limit: -1 })],
        ['deadline "soon"', () => vfs.grep('a', { deadline: 'soon' as unknown as number })],
      ]
      for (const [label, call] of bad) expect(await codeOf(call()), label).toBe('EINVAL')
      const ok = await vfs.grep('a', { context: MAX_GREP_CONTEXT, maxMatches: MAX_GREP_MATCHES })
      expect(ok.matches).toHaveLength(1)
    })

    it('grep and walk over a big tree stop at their limits with a truncated result', async () => {
      const vfs = await bigTree(20_000)
      // A deadline already past: the search stops at its first check, never after the whole tree.
      const grep = await vfs.grep('needle', { deadline: Date.now() - 1 })
      expect(grep.truncated).toBe(true)
      expect(grep.filesSearched).toBeLessThanOrEqual(WALK_CHECK_EVERY)
      const controller = new AbortController()
      controller.abort()
      const aborted = await vfs.grep('need', { regex: true, signal: controller.signal })
      expect(aborted.truncated).toBe(true)
      expect(aborted.filesSearched).toBeLessThanOrEqual(WALK_CHECK_EVERY)
      const walked = await vfs.walk('/big/**', { deadline: Date.now() - 1 })
      expect(walked.truncated).toBe(true)
      expect(walked.entries.length).toBeLessThanOrEqual(WALK_CHECK_EVERY)
      const limited = await vfs.walk('/big/**/*.txt', { limit: 10 })
      expect(limited).toMatchObject({ truncated: true })
      expect(limited.entries).toHaveLength(10)
      expect(limited.entries[0]).toEqual({ path: '/big/d000/f000000.txt', type: 'file', size: 7 })
      const all = await vfs.walk('/big/d001/**')
      expect(all.truncated).toBe(false)
      expect(all.entries).toHaveLength(200)
      // Through a run scope too: the same limits, logical paths.
      const run = scopeRun(vfs, { runId: 'r', roots: { big: { writable: false, target: '/big' } } })
      const runWalk = await run.walk('/big/**', { limit: 5 })
      expect(runWalk.truncated).toBe(true)
      expect(runWalk.entries.map(e => e.path)).toEqual([0, 100, 200, 300, 400].map(i => `/big/d000/f${String(i).padStart(6, '0')}.txt`))
      expect(runWalk.entries.every(e => e.path.startsWith('/big/'))).toBe(true)
      // Directories count too: a tree of empty directories cannot keep a search past its deadline.
      const store = await openStore()
      await store.commit(
        'hostile',
        'dirs',
        Array.from({ length: 2_000 }, (_, i) => ({
          op: 'put' as const,
          path: `/e/${i}/x`,
          kind: 'dir' as const,
          data: new Uint8Array(0),
          mtime: 0,
          ctime: 0,
          expectedVersion: null,
        })),
      )
      const dirs = await openVfs({ store, namespace: 'hostile', scope: 'dirs', autoRefresh: false })
      expect((await dirs.grep('x', { deadline: Date.now() - 1 })).truncated).toBe(true)
      expect((await dirs.grep('x', { paths: ['/e/**'], deadline: Date.now() - 1 })).truncated).toBe(true)
      expect((await dirs.grep('x')).truncated).toBe(false)
      const runGrep = await run.grep('needle', { deadline: Date.now() - 1 })
      expect(runGrep.truncated).toBe(true)
      expect(runGrep.filesSearched).toBeLessThanOrEqual(WALK_CHECK_EVERY)
    })

    it('the agent tools ls, glob and grep stop at their time limit over a big tree', async () => {
      const base = await bigTree(60_000)
      const run = scopeRun(base, { runId: 'r', roots: { big: { writable: false, target: '/big' } } })
      // A zero budget: each tool must notice at its first check and return what it has.
      const tools = createWorkspaceTools({ vfs: run, limits: { searchMillis: 0, listEntries: 100_000 } })
      const ls = (await tools.ls.execute({ path: '/big', recursive: true })) as {
        entries: unknown[]
        truncated: boolean
        note?: string
      }
      expect(ls.truncated).toBe(true)
      expect(ls.entries.length).toBeLessThan(60_000)
      expect(ls.note).toMatch(/ms/)
      const glob = (await tools.glob.execute({ pattern: '/big/**/*.txt' })) as { paths: string[]; truncated: boolean }
      expect(glob.truncated).toBe(true)
      expect(glob.paths.length).toBeLessThan(60_000)
      const grep = (await tools.grep.execute({ pattern: 'needle', path: '/big' })) as {
        matches: unknown[]
        truncated: boolean
        filesSearched: number
      }
      expect(grep.truncated).toBe(true)
      expect(grep.filesSearched).toBeLessThan(60_000)
      // With the default budget the count limits still apply.
      const counted = createWorkspaceTools({ vfs: run, limits: { listEntries: 50, grepMatches: 20 } })
      const g = (await counted.glob.execute({ pattern: '/big/**' })) as { paths: string[]; truncated: boolean }
      expect(g).toMatchObject({ truncated: true })
      expect(g.paths).toHaveLength(50)
      const m = (await counted.grep.execute({ pattern: 'needle' })) as { matches: unknown[]; truncated: boolean }
      expect(m).toMatchObject({ truncated: true })
      expect(m.matches).toHaveLength(20)
    })

    it('the agent grep tool turns a pattern the engine refuses into a tool error with a hint', async () => {
      const base = await open()
      const run = scopeRun(base, { runId: 'r' })
      await run.writeFile('/work/a.txt', 'a'.repeat(1_000) + '!\n')
      const tools = createWorkspaceTools({ vfs: run })
      for (const pattern of ['(a+){9}$', '((a|a))*$', '(?:(?:a|a))*$', '\\w*\\w*\\w*\\w*\\w*!', '(a+)+$']) {
        const r = (await quick(pattern, () => tools.grep.execute({ pattern, regex: true }))) as { matches: unknown[] }
        expect(Array.isArray(r.matches)).toBe(true)
      }
      const error = await tools.grep.execute({ pattern: '(a)\\1', regex: true }).then(
        () => undefined,
        (e: unknown) => e,
      )
      expect(error).toBeInstanceOf(ToolError)
      expect((error as ToolError).message).toMatch(/RE2/)
      expect((error as ToolError).message).toMatch(/Next: /)
    })
  })
}
