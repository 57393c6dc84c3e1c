import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { isVfsError, MAX_PATH_LENGTH, normalizePath, openVfs, scopeRun, type Vfs, type VfsStore } from '../../src/index.js'
import type { StoreHarness } from '../conformance/store-suite.js'

/** The error code of a failed promise, 'ok' when it succeeds; anything but a VfsError fails the test. */
export async function codeOf(p: Promise<unknown>): Promise<string> {
  try {
    await p
    return 'ok'
  } catch (e) {
    if (!isVfsError(e)) throw e
    return e.code
  }
}

/** Every path of a workspace with its content (`<dir>` for directories). */
export async function treeOf(vfs: Vfs): Promise<Record<string, string>> {
  const out: Record<string, string> = {}
  for (const p of await vfs.readdir('/', { recursive: true })) {
    const st = await vfs.stat('/' + p)
    out['/' + p] = st.type === 'file' ? await vfs.readFile('/' + p, 'utf8') : '<dir>'
  }
  return out
}

/**
 * The workspace against an attacker and a second writer, on a real store: stale directory
 * operations fail with ECONFLICT instead of losing acknowledged writes, one instance never
 * conflicts with itself, limits hold for every path an operation creates, deep trees survive
 * every operation and a reopen, and run scopes keep their roots and their inner paths to themselves.
 */
export function describeHostileWorkspace(name: string, setup: () => Promise<StoreHarness>): void {
  describe(`hostile workspace: ${name}`, () => {
    let h: StoreHarness
    let n = 0
    const ns = 'hostile'
    const fresh = () => `scope-${Date.now().toString(36)}-${++n}`
    const open = (store: VfsStore, scope: string) => openVfs({ store, namespace: ns, scope, autoRefresh: false })
    /** A and B on one new scope, B opened after `prepare` ran on A (so B starts in sync). */
    const twoWriters = async (prepare: (a: Vfs) => Promise<unknown>) => {
      const s = fresh()
      const a = await open(h.store, s)
      await prepare(a)
      const b = await open(h.store, s)
      return { s, a, b, reopen: () => open(h.store, s) }
    }

    beforeAll(async () => {
      h = await setup()
    })
    afterAll(async () => {
      await h?.cleanup?.()
    })

    describe('two writers: a stale directory operation fails and loses nothing', () => {
      it('a stale mkdir or write below a path that became a file', async () => {
        const { a, b, reopen } = await twoWriters(async () => undefined)
        await a.writeFile('/p', 'acknowledged')
        expect(await codeOf(b.mkdir('/p/q'))).toBe('ECONFLICT')
        expect(await codeOf(b.writeFile('/p/c', 'stale'))).toBe('ECONFLICT')
        expect(await treeOf(await reopen())).toEqual({ '/p': 'acknowledged' })
      })

      it('a stale write into a directory that was replaced by a file', async () => {
        const { a, b, reopen } = await twoWriters(a => a.mkdir('/p'))
        await a.rmdir('/p')
        await a.writeFile('/p', 'file now')
        expect(await codeOf(b.writeFile('/p/c', 'stale'))).toBe('ECONFLICT')
        expect(await codeOf(b.mkdir('/p/q'))).toBe('ECONFLICT')
        expect(await treeOf(await reopen())).toEqual({ '/p': 'file now' })
      })

      it('a stale rename of a directory that gained a file', async () => {
        const { a, b, reopen } = await twoWriters(a => a.writeFile('/d/old.txt', 'old'))
        await a.writeFile('/d/new.txt', 'new')
        expect(await codeOf(b.rename('/d', '/e'))).toBe('ECONFLICT')
        expect(await treeOf(await reopen())).toEqual({ '/d': '<dir>', '/d/old.txt': 'old', '/d/new.txt': 'new' })
      })

      it('a stale rmdir of a directory that is no longer empty, recursive or not', async () => {
        const { a, b, reopen } = await twoWriters(a => a.mkdir('/d/sub'))
        await a.writeFile('/d/sub/x.txt', 'x')
        expect(await codeOf(b.rmdir('/d/sub'))).toBe('ECONFLICT')
        expect(await codeOf(b.rmdir('/d', { recursive: true }))).toBe('ECONFLICT')
        expect(await treeOf(await reopen())).toEqual({ '/d': '<dir>', '/d/sub': '<dir>', '/d/sub/x.txt': 'x' })
      })

      it('a stale rename onto an empty directory that gained a file', async () => {
        const { a, b, reopen } = await twoWriters(async a => {
          await a.mkdir('/target')
          await a.writeFile('/src/f', 'f')
        })
        await a.writeFile('/target/kept', 'kept')
        expect(await codeOf(b.rename('/src', '/target'))).toBe('ECONFLICT')
        expect(await treeOf(await reopen())).toEqual({
          '/src': '<dir>',
          '/src/f': 'f',
          '/target': '<dir>',
          '/target/kept': 'kept',
        })
      })

      it('a stale copy of a directory whose files changed', async () => {
        const { a, b, reopen } = await twoWriters(a => a.writeFile('/d/a.txt', 'v1'))
        await a.writeFile('/d/a.txt', 'v2')
        expect(await codeOf(b.copy('/d', '/e'))).toBe('ECONFLICT')
        expect(await codeOf(b.copy('/d/a.txt', '/e.txt'))).toBe('ECONFLICT')
        await a.writeFile('/d/b.txt', 'b')
        await b.refresh()
        await a.writeFile('/d/c.txt', 'c')
        expect(await codeOf(b.copy('/d', '/e'))).toBe('ECONFLICT')
        expect(await treeOf(await reopen())).toEqual({ '/d': '<dir>', '/d/a.txt': 'v2', '/d/b.txt': 'b', '/d/c.txt': 'c' })
      })

      it('a stale delete of a file that became a directory', async () => {
        const { a, b, reopen } = await twoWriters(a => a.writeFile('/f', 'file'))
        await a.deleteFile('/f')
        await a.writeFile('/f/inside', 'inside')
        expect(await codeOf(b.deleteFile('/f'))).toBe('ECONFLICT')
        expect(await codeOf(b.writeFile('/f', 'stale'))).toBe('ECONFLICT')
        expect(await treeOf(await reopen())).toEqual({ '/f': '<dir>', '/f/inside': 'inside' })
      })

      it('writers of different files in one directory do not conflict', async () => {
        const { a, b, reopen } = await twoWriters(a => a.mkdir('/shared'))
        await Promise.all([a.writeFile('/shared/a', 'a'), b.writeFile('/shared/b', 'b')])
        await a.writeFile('/shared/sub/a2', 'a2')
        await b.writeFile('/shared/b2', 'b2')
        expect(await treeOf(await reopen())).toEqual({
          '/shared': '<dir>',
          '/shared/a': 'a',
          '/shared/b': 'b',
          '/shared/b2': 'b2',
          '/shared/sub': '<dir>',
          '/shared/sub/a2': 'a2',
        })
      })
    })

    describe('one instance never conflicts with itself', () => {
      it('same-tick sequences of directory and file operations', async () => {
        const s = fresh()
        const a = await open(h.store, s)
        await a.mkdir('/p')
        await a.writeFile('/q/x', 'x')
        await a.writeFile('/r/old', 'old')
        await Promise.all([
          a.rmdir('/p'),
          a.writeFile('/p', 'file over a removed dir'),
          a.rmdir('/q', { recursive: true }),
          a.mkdir('/q'),
          a.writeFile('/q/y', 'y'),
          a.mkdir('/tmp/t'),
          a.rmdir('/tmp', { recursive: true }),
          a.rename('/r', '/s'),
          a.writeFile('/r/again', 'again'),
          a.writeFile('/c/one', '1'),
          a.copy('/c', '/c2'),
          a.rename('/c2', '/c3'),
        ])
        await a.deleteFile('/p')
        await Promise.all([a.mkdir('/p'), a.writeFile('/p/in', 'in'), a.rename('/p', '/pp'), a.rmdir('/q', { recursive: true })])
        await a.flush()
        const expected = {
          '/pp': '<dir>',
          '/pp/in': 'in',
          '/s': '<dir>',
          '/s/old': 'old',
          '/r': '<dir>',
          '/r/again': 'again',
          '/c': '<dir>',
          '/c/one': '1',
          '/c3': '<dir>',
          '/c3/one': '1',
        }
        expect(await treeOf(a)).toEqual(expected)
        expect(await treeOf(await open(h.store, s))).toEqual(expected)
      })

      it('sequences that span commits in flight', async () => {
        const s = fresh()
        const a = await open(h.store, s)
        const first = a.writeFile('/d/x', 'x')
        await new Promise(r => setTimeout(r, 0))
        const rest = [a.rmdir('/d', { recursive: true }), a.writeFile('/d', 'now a file'), a.mkdir('/e/f'), a.rename('/e', '/g')]
        await Promise.all([first, ...rest])
        expect(await treeOf(await open(h.store, s))).toEqual({ '/d': 'now a file', '/g': '<dir>', '/g/f': '<dir>' })
      })
    })

    describe('limits hold for every path an operation creates', () => {
      it('rename and copy refuse to create a path over the limit, and change nothing', async () => {
        const s = fresh()
        const a = await open(h.store, s)
        const long = '/' + Array.from({ length: 16 }, () => 'n'.repeat(250)).join('/') // 4,016 characters
        await a.writeFile(long + '/leaf.txt', 'leaf')
        const before = await treeOf(a)
        const deeper = '/' + 'x'.repeat(100)
        for (const attempt of [
          () => a.rename('/' + 'n'.repeat(250), deeper + '/' + 'n'.repeat(250)),
          () => a.copy('/' + 'n'.repeat(250), deeper + '/' + 'm'.repeat(250)),
        ]) {
          const error = await attempt().catch(e => e)
          expect(isVfsError(error, 'EINVAL'), String(error)).toBe(true)
          expect(error.message).toContain(String(MAX_PATH_LENGTH))
        }
        expect(await treeOf(a)).toEqual(before)
        expect(await treeOf(await open(h.store, s))).toEqual(before)
      })

      it('a tree 2,000 directories deep survives every operation and a reopen', async () => {
        const s = fresh()
        const a = await open(h.store, s)
        const depth = 2000
        const deep = '/d'.repeat(depth - 1)
        await a.writeFile(deep + '/f.txt', 'needle')
        expect((await a.readdir('/', { recursive: true })).length).toBe(depth)
        expect(await a.glob('/**/f.txt')).toEqual([deep + '/f.txt'])
        expect((await a.grep('needle')).matches.map(m => m.path)).toEqual([deep + '/f.txt'])
        await a.copy('/d/d', '/c')
        await a.rename('/d', '/e')
        const b = await open(h.store, s)
        expect((await b.readdir('/', { recursive: true })).length).toBe(2 * depth - 1)
        expect(await b.readFile('/e' + deep.slice(2) + '/f.txt', 'utf8')).toBe('needle')
        await b.rmdir('/e', { recursive: true })
        await b.rmdir('/c', { recursive: true })
        expect(await treeOf(await open(h.store, s))).toEqual({})
      }, 120_000)
    })

    describe('run scopes', () => {
      const roots = ['/work', '/outputs', '/state', '/context', '/skills']

      it('roots stay directories: no file, copy, move or removal replaces a root', async () => {
        const vfs = await open(h.store, fresh())
        const run = scopeRun(vfs, { runId: 'r1' })
        await run.writeFile('/work/a.txt', 'a')
        await run.mkdir('/work/dir')
        for (const root of roots) {
          for (const attempt of [
            () => run.writeFile(root, 'x'),
            () => run.appendFile(root, 'x'),
            () => run.copy('/work/a.txt', root),
            () => run.copy('/work/dir', root),
            () => run.rename('/work/a.txt', root),
            () => run.rename('/work/dir', root),
            () => run.rmdir(root, { recursive: true }),
            () => run.deleteFile(root),
            () => run.rename(root, '/work/moved'),
          ]) {
            const code = await codeOf(attempt())
            expect(['EACCES', 'EISDIR'], `${root}: ${code}`).toContain(code)
          }
          expect((await run.stat(root)).type).toBe('directory')
        }
        expect(await treeOf(vfs)).toEqual({
          '/runs': '<dir>',
          '/runs/r1': '<dir>',
          '/runs/r1/work': '<dir>',
          '/runs/r1/work/a.txt': 'a',
          '/runs/r1/work/dir': '<dir>',
        })
      })

      it('no error names an inner path', async () => {
        const s = fresh()
        const vfs = await openVfs({ store: h.store, namespace: ns, scope: s, autoRefresh: false, quota: { maxFiles: 4 } })
        const run = scopeRun(vfs, { runId: 'secret-run' })
        await run.seed('/context/brief.md', 'brief')
        await run.writeFile('/work/a.txt', 'a')
        await run.writeFile('/work/file', 'f')
        await run.mkdir('/outputs/dir')
        const other = await open(h.store, s)
        await other.writeFile('/runs/secret-run/work/a.txt', 'changed elsewhere')
        const attempts: Array<() => Promise<unknown>> = [
          () => run.readFile('/work/missing.txt'),
          () => run.readFile('/work'),
          () => run.readdir('/work/a.txt'),
          () => run.readdir('/work/nope'),
          () => run.stat('/work/nope'),
          () => run.writeFile('/work/file/below', 'x'),
          () => run.mkdir('/work/file/below'),
          () => run.writeFile('/outputs/dir', 'x'),
          () => run.appendFile('/outputs/dir', 'x'),
          () => run.deleteFile('/work/nope'),
          () => run.deleteFile('/outputs/dir'),
          () => run.rmdir('/work/a.txt'),
          () => run.rmdir('/work/nope'),
          () => run.rename('/work/nope', '/work/x'),
          () => run.rename('/work/a.txt', '/outputs/dir'),
          () => run.rename('/outputs/dir', '/work/file'),
          () => run.rename('/work', '/work/x'),
          () => run.copy('/work/nope', '/work/x'),
          () => run.copy('/work/a.txt', '/outputs/dir'),
          () => run.copy('/context', '/work/file'),
          () => run.copy('/outputs/dir', '/outputs/dir/inside'),
          () => run.grep('x', { paths: ['/work/nope'] }),
          () => run.grep('x', { paths: ['/work/a.txt/x'] }),
          () => run.grep('(', { regex: true }),
          () => run.readdir('/work/file/x'),
          () => run.writeFile('/work/a.txt', 'stale'),
          () => run.writeFile('/work/a.txt', 'v', { expectedVersion: 99 }),
          () =>
            run
              .writeFile('/work/q1', '1')
              .then(() => run.writeFile('/work/q2', '2'))
              .then(() => run.writeFile('/work/q3', '3')),
          () => run.copy('/work', '/outputs/copy'),
          () => run.writeFile('/work/' + 'n'.repeat(300), 'x'),
          () => run.writeFile('/work/a\u202Eb', 'x'),
          () => run.rename('/work/file', '/work/' + 'x/'.repeat(2100) + 'y'),
          () => run.mkdir('/context/x'),
          () => run.seed('/work/file/x', 'x'),
        ]
        let failures = 0
        const succeeded: string[] = []
        for (const attempt of attempts) {
          try {
            await attempt()
            succeeded.push(String(attempt))
          } catch (error) {
            failures++
            expect(isVfsError(error), String(error)).toBe(true)
            for (let e: unknown = error; e instanceof Error; e = e.cause) {
              expect(e.message, e.message).not.toContain('/runs')
              expect(String((e as { path?: string }).path ?? ''), e.message).not.toContain('/runs')
              expect(e.message, e.message).not.toContain('secret-run')
            }
          }
        }
        expect(succeeded).toEqual([])
        expect(failures).toBe(attempts.length)
      })
    })

    describe('names', () => {
      const refused = [
        ['C1 control U+0085', '\u0085'],
        ['C1 control U+009F', '\u009f'],
        ['DEL', '\u007f'],
        ['tab', '\t'],
        ['right-to-left override U+202E', '\u202e'],
        ['left-to-right embedding U+202A', '\u202a'],
        ['isolate U+2066', '\u2066'],
        ['pop isolate U+2069', '\u2069'],
        ['left-to-right mark U+200E', '\u200e'],
        ['right-to-left mark U+200F', '\u200f'],
        ['Arabic letter mark U+061C', '\u061c'],
        ['zero-width space U+200B', '\u200b'],
        ['zero-width joiner U+200D', '\u200d'],
        ['word joiner U+2060', '\u2060'],
        ['BOM U+FEFF', '\ufeff'],
        ['lone high surrogate', '\ud800'],
        ['lone low surrogate', '\udc00'],
      ] as const
      it.each(refused)('refuses %s with EINVAL and says why', async (_what, ch) => {
        const vfs = await open(h.store, fresh())
        for (const path of [`/a${ch}b.txt`, `/dir${ch}/x`, `${ch}`]) {
          const error = await vfs.writeFile(path, 'x').catch(e => e)
          expect(isVfsError(error, 'EINVAL'), `${JSON.stringify(path)}: ${error}`).toBe(true)
          expect(error.message).toMatch(/control|invisible|bidi|surrogate/i)
        }
        expect(await vfs.readdir('/')).toEqual([])
      })

      it('accepts ordinary non-ASCII names', async () => {
        const vfs = await open(h.store, fresh())
        const names = ['/ünïcødé.md', '/日本語/ファイル.txt', '/emoji/🙂👍🏽.md', '/nbsp\u00a0name', '/עברית.txt', '/العربية.md', '/family👨‍👩‍👧']
        // ZWJ inside an emoji sequence is refused like any zero-width character: names must look like what they are.
        for (const p of names.slice(0, -1)) await vfs.writeFile(p, p)
        expect(await codeOf(vfs.writeFile(names.at(-1)!, 'x'))).toBe('EINVAL')
        expect(
          Object.keys(await treeOf(await open(h.store, vfs.scope))).filter(p => !p.endsWith('日本語') && !p.endsWith('emoji')),
        ).toHaveLength(names.length - 1)
        for (const p of names.slice(0, -1)) expect(normalizePath(p)).toBe(p)
      })
    })
  })
}
