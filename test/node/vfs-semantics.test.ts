import { describe, expect, it } from 'vitest'
import { isVfsError, memoryStore, normalizePath, openVfs, vfsRegistry, type Vfs, type VfsChange } from '../../src/index.js'

const fresh = async () => openVfs({ store: memoryStore(), namespace: 'sem', scope: 's' })
const code = async (p: Promise<unknown>) => {
  try {
    await p
    return 'ok'
  } catch (e) {
    if (!isVfsError(e)) throw e
    return e.code
  }
}

describe('paths', () => {
  it('normalises once, POSIX style, and resolves relative paths against /', () => {
    expect(normalizePath('notes/a.md')).toBe('/notes/a.md')
    expect(normalizePath('/a//b/./c/')).toBe('/a/b/c')
    expect(normalizePath('/')).toBe('/')
    expect(normalizePath('./x')).toBe('/x')
    expect(normalizePath('/a/.../b')).toBe('/a/.../b')
  })

  it.each([
    ['..', 'EINVAL'],
    ['/a/../b', 'EINVAL'],
    ['a\\b', 'EINVAL'],
    ['/a\u0000b', 'EINVAL'],
    ['', 'EINVAL'],
    ['/x\ny', 'EINVAL'],
    ['/' + 'n'.repeat(256), 'EINVAL'],
    ['/a'.repeat(2100), 'EINVAL'],
  ])('refuses %j with %s, with the path and what to do', (path, expected) => {
    try {
      normalizePath(path)
      expect.unreachable()
    } catch (e) {
      expect(isVfsError(e, expected as 'EINVAL')).toBe(true)
      expect((e as Error).message).toMatch(/EINVAL: .+: use an absolute POSIX path/)
    }
  })

  it('refuses bad paths before anything happens', async () => {
    const vfs = await fresh()
    expect(await code(vfs.writeFile('/ok/../evil', 'x'))).toBe('EINVAL')
    expect(await vfs.readdir('/')).toEqual([])
  })
})

describe('files and directories', () => {
  it('creates parents on write, lists sorted, recursive names are relative', async () => {
    const vfs = await fresh()
    await vfs.writeFile('b/z.txt', 'z')
    await vfs.writeFile('/b/a.txt', 'a')
    await vfs.writeFile('/a.md', '#')
    expect(await vfs.readdir('/')).toEqual(['a.md', 'b'])
    expect(await vfs.readdir('/', { recursive: true })).toEqual(['a.md', 'b', 'b/a.txt', 'b/z.txt'])
    expect(await vfs.readdir('/b', { recursive: true })).toEqual(['a.txt', 'z.txt'])
    expect(await code(vfs.readdir('/a.md'))).toBe('ENOTDIR')
    expect(await code(vfs.readdir('/nope'))).toBe('ENOENT')
  })

  it('reports POSIX errors for impossible operations', async () => {
    const vfs = await fresh()
    await vfs.writeFile('/f', 'file')
    await vfs.mkdir('/d/e')
    expect(await code(vfs.writeFile('/f/child', 'x'))).toBe('ENOTDIR')
    expect(await code(vfs.writeFile('/d', 'x'))).toBe('EISDIR')
    expect(await code(vfs.writeFile('/', 'x'))).toBe('EISDIR')
    expect(await code(vfs.readFile('/d'))).toBe('EISDIR')
    expect(await code(vfs.readFile('/missing'))).toBe('ENOENT')
    expect(await code(vfs.deleteFile('/d'))).toBe('EISDIR')
    expect(await code(vfs.deleteFile('/missing'))).toBe('ENOENT')
    expect(await code(vfs.mkdir('/f'))).toBe('EEXIST')
    expect(await code(vfs.rmdir('/d'))).toBe('ENOTEMPTY')
    expect(await code(vfs.rmdir('/f'))).toBe('ENOTDIR')
    expect(await code(vfs.rmdir('/'))).toBe('EINVAL')
    expect(await code(vfs.stat('/missing'))).toBe('ENOENT')
  })

  it('mkdir is recursive and idempotent; rmdir recursive removes the subtree', async () => {
    const vfs = await fresh()
    await vfs.mkdir('/x/y/z')
    await vfs.mkdir('/x/y/z')
    await vfs.writeFile('/x/y/z/f.txt', 'f')
    await vfs.rmdir('/x/y', { recursive: true })
    expect(await vfs.readdir('/x')).toEqual([])
    await vfs.rmdir('/x')
    expect(await vfs.exists('/x')).toBe(false)
  })

  it('stat carries size, times, MIME type and a version that moves with durable writes', async () => {
    const vfs = await fresh()
    await vfs.writeFile('/doc.md', 'héllo')
    await vfs.writeFile('/blob', new Uint8Array([1]))
    const s1 = await vfs.stat('/doc.md')
    expect(s1).toMatchObject({ type: 'file', size: 6, mimeType: 'text/markdown' })
    expect(s1.version).toBeGreaterThan(0)
    await vfs.writeFile('/doc.md', 'changed')
    const s2 = await vfs.stat('/doc.md')
    expect(s2.version).toBeGreaterThan(s1.version)
    expect(s2.ctime).toBe(s1.ctime)
    expect(await vfs.stat('/')).toMatchObject({ type: 'directory', mimeType: 'inode/directory' })
    expect((await vfs.stat('/blob')).mimeType).toBe('application/octet-stream')
  })

  it('compare-and-swap with expectedVersion, including create-only (0) and writes still in flight', async () => {
    const vfs = await fresh()
    await vfs.writeFile('/n', '1', { expectedVersion: 0 })
    expect(await code(vfs.writeFile('/n', 'again', { expectedVersion: 0 }))).toBe('ECONFLICT')
    const v = (await vfs.stat('/n')).version
    const first = vfs.writeFile('/n', '2', { expectedVersion: v })
    // The first write is not durable yet: a second writer holding the same version must lose.
    expect(await code(vfs.writeFile('/n', '3', { expectedVersion: v }))).toBe('ECONFLICT')
    await first
    expect(await vfs.readFile('/n', 'utf8')).toBe('2')
    expect(await code(vfs.writeFile('/n', 'x', { expectedVersion: -1 }))).toBe('EINVAL')
  })

  it('owns its bytes: neither the caller’s buffer nor a returned one can change the file', async () => {
    const vfs = await fresh()
    const input = new Uint8Array([1, 2, 3])
    await vfs.writeFile('/b', input)
    input[0] = 9
    const out = await vfs.readFile('/b')
    out[1] = 9
    expect(Array.from(await vfs.readFile('/b'))).toEqual([1, 2, 3])
    await vfs.writeFile('/dv', new DataView(new Uint8Array([5, 6, 7, 8]).buffer, 1, 2))
    expect(Array.from(await vfs.readFile('/dv'))).toEqual([6, 7])
    expect(await code(vfs.writeFile('/bad', 42 as unknown as string))).toBe('EINVAL')
  })
})

describe('rename and copy', () => {
  it('moves files and directories, overwriting a file target like POSIX', async () => {
    const vfs = await fresh()
    await vfs.writeFile('/a.txt', 'a')
    await vfs.writeFile('/b.txt', 'b')
    await vfs.rename('/a.txt', '/b.txt')
    expect(await vfs.readdir('/')).toEqual(['b.txt'])
    expect(await vfs.readFile('/b.txt', 'utf8')).toBe('a')
    await vfs.writeFile('/dir/sub/x', 'x')
    await vfs.rename('/dir', '/deep/new')
    expect(await vfs.readdir('/deep/new', { recursive: true })).toEqual(['sub', 'sub/x'])
    await vfs.rename('/b.txt', '/b.txt')
    expect(await vfs.readFile('/b.txt', 'utf8')).toBe('a')
  })

  it('refuses impossible moves and copies', async () => {
    const vfs = await fresh()
    await vfs.writeFile('/d/x', 'x')
    await vfs.writeFile('/e/y', 'y')
    await vfs.writeFile('/f', 'f')
    expect(await code(vfs.rename('/d', '/d/inner'))).toBe('EINVAL')
    expect(await code(vfs.rename('/f', '/d'))).toBe('EISDIR')
    expect(await code(vfs.rename('/d', '/f'))).toBe('ENOTDIR')
    expect(await code(vfs.rename('/d', '/e'))).toBe('ENOTEMPTY')
    expect(await code(vfs.rename('/missing', '/z'))).toBe('ENOENT')
    expect(await code(vfs.copy('/d', '/e'))).toBe('EEXIST')
  })

  it('copies a directory tree, leaving the source', async () => {
    const vfs = await fresh()
    await vfs.writeFile('/src/a/1.txt', 'one')
    await vfs.writeFile('/src/2.txt', 'two')
    await vfs.copy('/src', '/dst')
    expect(await vfs.readdir('/dst', { recursive: true })).toEqual(['2.txt', 'a', 'a/1.txt'])
    expect(await vfs.readFile('/src/a/1.txt', 'utf8')).toBe('one')
    await vfs.writeFile('/dst/2.txt', 'changed')
    expect(await vfs.readFile('/src/2.txt', 'utf8')).toBe('two')
  })
})

describe('glob and grep', () => {
  const seed = async (vfs: Vfs) => {
    await vfs.writeFile('/context/ep/01.md', 'INT. HOUSE - DAY\nMARA\nHello there.\r\nBye.\n')
    await vfs.writeFile('/context/ep/02.md', 'EXT. FIELD - NIGHT\nJONAS\nhello again\n')
    await vfs.writeFile('/context/.hidden.md', 'hello hidden')
    await vfs.writeFile('/work/notes.txt', 'nothing')
    await vfs.writeFile('/work/bin.dat', new Uint8Array([104, 101, 108, 108, 111, 0, 1]))
  }

  it('matches **, *, ?, braces and dot files; files only unless asked', async () => {
    const vfs = await fresh()
    await seed(vfs)
    expect(await vfs.glob('**/*.md')).toEqual(['/context/.hidden.md', '/context/ep/01.md', '/context/ep/02.md'])
    expect(await vfs.glob('/context/ep/0?.md')).toEqual(['/context/ep/01.md', '/context/ep/02.md'])
    expect(await vfs.glob('/work/*.{txt,dat}')).toEqual(['/work/bin.dat', '/work/notes.txt'])
    expect(await vfs.glob('/context/*', { includeDirs: true })).toEqual(['/context/.hidden.md', '/context/ep'])
    expect(await vfs.glob('/work/notes.txt')).toEqual(['/work/notes.txt'])
    expect(await vfs.glob('/nowhere/**')).toEqual([])
    expect(await code(vfs.glob(''))).toBe('EINVAL')
  })

  it('greps literally and by regex, with line, column, context and CRLF handled', async () => {
    const vfs = await fresh()
    await seed(vfs)
    const literal = await vfs.grep('Hello')
    expect(literal.matches).toEqual([{ path: '/context/ep/01.md', line: 3, column: 1, text: 'Hello there.' }])
    const ci = await vfs.grep('hello', { ignoreCase: true })
    expect(ci.matches.map(m => m.path)).toEqual(['/context/.hidden.md', '/context/ep/01.md', '/context/ep/02.md'])
    expect(ci.filesSearched).toBe(4) // the binary file is skipped
    const re = await vfs.grep('^(INT|EXT)\\. .* - (DAY|NIGHT)$', { regex: true, context: 1 })
    expect(re.matches).toEqual([
      { path: '/context/ep/01.md', line: 1, column: 1, text: 'INT. HOUSE - DAY', before: [], after: ['MARA'] },
      { path: '/context/ep/02.md', line: 1, column: 1, text: 'EXT. FIELD - NIGHT', before: [], after: ['JONAS'] },
    ])
    const ctx = await vfs.grep('Bye', { context: 2 })
    expect(ctx.matches[0]).toMatchObject({ line: 4, before: ['MARA', 'Hello there.'], after: [''] })
  })

  it('limits by paths (dirs, files, globs), caps matches and says it truncated', async () => {
    const vfs = await fresh()
    await seed(vfs)
    for (let i = 0; i < 30; i++) await vfs.appendFile('/work/many.txt', `hit ${i}\n`)
    expect((await vfs.grep('hello', { ignoreCase: true, paths: ['/context/ep'] })).matches).toHaveLength(2)
    expect((await vfs.grep('hello', { ignoreCase: true, paths: ['**/02.md'] })).matches).toHaveLength(1)
    const capped = await vfs.grep('hit', { maxMatches: 10 })
    expect(capped.matches).toHaveLength(10)
    expect(capped.truncated).toBe(true)
    expect((await vfs.grep('hit', { maxMatches: 30 })).truncated).toBe(false)
    expect(await code(vfs.grep('(', { regex: true }))).toBe('EINVAL')
    expect(await code(vfs.grep('x', { paths: ['/missing'] }))).toBe('ENOENT')
    expect((await vfs.grep('x*', { regex: true, maxMatches: 5 })).matches.length).toBe(5) // empty matches do not loop
  })
})

describe('lifecycle', () => {
  it('reports commits to listeners and refuses use after close', async () => {
    const vfs = await fresh()
    const changes: VfsChange[] = []
    vfs.onChange(c => changes.push(c))
    await Promise.all([vfs.writeFile('/a', '1'), vfs.writeFile('/b', '2')])
    expect(changes).toEqual([{ type: 'commit', version: expect.any(Number), paths: ['/a', '/b'], changes: expect.any(Array) }])
    await vfs.close()
    expect(await code(vfs.readFile('/a'))).toBe('ECLOSED')
    expect(await code(vfs.writeFile('/a', 'x'))).toBe('ECLOSED')
  })

  it('validates openVfs options', async () => {
    await expect(openVfs({ store: memoryStore(), namespace: '', scope: 's' })).rejects.toThrow(/namespace/)
    await expect(openVfs({ store: {} as never, namespace: 'n', scope: 's' })).rejects.toThrow(/store/)
    await expect(openVfs({ store: memoryStore(), namespace: 'n', scope: 's', quota: { maxBytes: -1 } })).rejects.toThrow(/quota/)
  })
})

describe('registry', () => {
  it('caches per (namespace, scope), evicts memory only, deletes data on deleteScope', async () => {
    const store = memoryStore()
    const reg = vfsRegistry({ store })
    const a1 = await reg.open('ns', 'a')
    // Handles of one scope reach one instance: a write is visible through the other at once.
    const pending = a1.writeFile('/kept.txt', 'kept')
    expect(await (await reg.open('ns', 'a')).readFile('/kept.txt', 'utf8')).toBe('kept')
    expect(await (await reg.open('ns', 'b')).exists('/kept.txt')).toBe(false)
    await pending
    await reg.evict('ns', 'a')
    expect(reg.cached()).toEqual([{ namespace: 'ns', scope: 'b' }])
    const a2 = await reg.open('ns', 'a')
    expect(a2).not.toBe(a1)
    expect(await a2.readFile('/kept.txt', 'utf8')).toBe('kept')
    expect(await reg.listScopes('ns')).toEqual(['a'])
    await reg.deleteScope('ns', 'a')
    expect(await reg.listScopes('ns')).toEqual([])
    expect(await (await reg.open('ns', 'a')).exists('/kept.txt')).toBe(false)
    await reg.closeAll()
    expect(reg.cached()).toEqual([])
  })
})
