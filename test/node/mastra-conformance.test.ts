/**
 * The behaviours of Mastra's own filesystem provider suite (`createFilesystemTestSuite` in
 * mastra-ai/mastra workspaces/_test-utils: file, directory, path, error and lifecycle domains),
 * written as our tests and run over VfsFilesystem on three kinds of workspace: a plain one, a
 * registry handle whose scope is evicted between operations, and a run scope.
 */
import { FileNotFoundError, PermissionError, type WorkspaceFilesystem } from '@mastra/core/workspace'
import { beforeAll, describe, expect, it } from 'vitest'
import { memoryStore, openVfs, scopeRun, vfsRegistry, type Vfs } from '../../src/index.js'
import { VfsFilesystem } from '../../src/mastra/index.js'

interface Setup {
  vfs: Vfs
  /** A directory of the workspace tests may write below. */
  base: string
  /** Something that pushes the workspace out of memory, if the setup has memory to lose. */
  churn?: () => Promise<void>
}

const text = { encoding: 'utf-8' as const }
const binary = (n: number) => Uint8Array.from({ length: n }, (_, i) => (i * 37) % 256)
const isType = async (fs: WorkspaceFilesystem, p: string, type: 'file' | 'directory') => {
  try {
    return (await fs.stat(p)).type === type
  } catch {
    return false
  }
}

function describeMastraFilesystem(name: string, setup: () => Promise<Setup>): void {
  describe(`Mastra filesystem suite: ${name}`, () => {
    let fs: VfsFilesystem
    let base: string
    let churn: () => Promise<void>
    let n = 0
    const dir = () => `${base}/t${++n}`
    beforeAll(async () => {
      const s = await setup()
      fs = new VfsFilesystem({ vfs: s.vfs })
      await fs.init()
      base = s.base
      churn = s.churn ?? (async () => {})
    })

    it('lifecycle: ready, identified, optional props typed', () => {
      expect(fs.status).toBe('ready')
      for (const v of [fs.id, fs.name, fs.provider]) expect(typeof v).toBe('string')
      expect(typeof fs.readOnly).toBe('boolean')
    })

    it('files: text, binary, nested parents, overwrite, empty, unicode, 1 MB', async () => {
      const d = dir()
      const cases: Array<[string, string | Uint8Array]> = [
        ['text.txt', 'Hello, World!'],
        ['bin.bin', binary(256)],
        ['nested/deep/file.txt', 'nested'],
        ['empty.txt', ''],
        ['unicode.txt', '你好世界 🌍 مرحبا'],
        ['large.txt', 'x'.repeat(1024 * 1024)],
      ]
      for (const [p, content] of cases) await fs.writeFile(`${d}/${p}`, content)
      await churn()
      for (const [p, content] of cases) {
        if (typeof content === 'string') expect(await fs.readFile(`${d}/${p}`, text), p).toBe(content)
        else {
          const got = await fs.readFile(`${d}/${p}`)
          expect(typeof got).not.toBe('string')
          expect(new Uint8Array(got as Uint8Array)).toEqual(content)
        }
      }
      await fs.writeFile(`${d}/text.txt`, 'updated')
      expect(await fs.readFile(`${d}/text.txt`, text)).toBe('updated')
    })

    it('files: append (existing and new), delete (and force on missing), copy (with overwrite), move (across directories)', async () => {
      const d = dir()
      await fs.writeFile(`${d}/a.txt`, 'Hello')
      await fs.appendFile(`${d}/a.txt`, ', World!')
      await fs.appendFile(`${d}/new.txt`, 'New content')
      await churn()
      expect(await fs.readFile(`${d}/a.txt`, text)).toBe('Hello, World!')
      expect(await fs.readFile(`${d}/new.txt`, text)).toBe('New content')
      await fs.deleteFile(`${d}/new.txt`)
      expect(await fs.exists(`${d}/new.txt`)).toBe(false)
      await fs.deleteFile(`${d}/never.txt`, { force: true })
      await fs.copyFile(`${d}/a.txt`, `${d}/copy.txt`)
      await fs.writeFile(`${d}/target.txt`, 'original')
      await fs.copyFile(`${d}/a.txt`, `${d}/target.txt`, { overwrite: true })
      expect([await fs.readFile(`${d}/copy.txt`, text), await fs.readFile(`${d}/target.txt`, text)]).toEqual([
        'Hello, World!',
        'Hello, World!',
      ])
      await fs.moveFile(`${d}/copy.txt`, `${d}/moved.txt`)
      await fs.writeFile(`${d}/dir1/file.txt`, 'across')
      await fs.moveFile(`${d}/dir1/file.txt`, `${d}/dir2/file.txt`)
      await churn()
      expect(await fs.exists(`${d}/copy.txt`)).toBe(false)
      expect(await fs.exists(`${d}/dir1/file.txt`)).toBe(false)
      expect(await fs.readFile(`${d}/moved.txt`, text)).toBe('Hello, World!')
      expect(await fs.readFile(`${d}/dir2/file.txt`, text)).toBe('across')
    })

    it('directories: mkdir (plain, nested, repeated), rmdir (empty, recursive), readdir (names, types, empty, recursive, extension)', async () => {
      const d = dir()
      await fs.mkdir(`${d}/new-dir`) // the parent does not exist yet: mkdir is recursive by default
      await fs.mkdir(`${d}/a/b/c/d`, { recursive: true })
      await fs.mkdir(`${d}/a/b/c/d`, { recursive: true })
      expect(await isType(fs, `${d}/new-dir`, 'directory')).toBe(true)
      expect(await isType(fs, `${d}/a/b/c/d`, 'directory')).toBe(true)
      await fs.mkdir(`${d}/empty-dir`)
      await fs.rmdir(`${d}/empty-dir`)
      await fs.writeFile(`${d}/full/f1.txt`, '1')
      await fs.writeFile(`${d}/full/sub/f3.txt`, '3')
      await fs.rmdir(`${d}/full`, { recursive: true })
      await churn()
      expect(await fs.exists(`${d}/empty-dir`)).toBe(false)
      expect(await fs.exists(`${d}/full`)).toBe(false)
      const l = `${d}/list`
      await fs.writeFile(`${l}/file1.txt`, 'content1')
      await fs.writeFile(`${l}/file.md`, 'markdown')
      await fs.writeFile(`${l}/file.json`, '{}')
      await fs.mkdir(`${l}/sub`)
      await fs.writeFile(`${l}/sub/nested.txt`, 'nested')
      await fs.mkdir(`${l}/empty`)
      const entries = await fs.readdir(l)
      expect(entries.map(e => [e.name, e.type]).sort()).toEqual([
        ['empty', 'directory'],
        ['file.json', 'file'],
        ['file.md', 'file'],
        ['file1.txt', 'file'],
        ['sub', 'directory'],
      ])
      expect(await fs.readdir(`${l}/empty`)).toEqual([])
      expect((await fs.readdir(l, { recursive: true })).map(e => e.name)).toContain('sub/nested.txt')
      expect((await fs.readdir(l, { extension: '.txt' })).filter(e => e.type === 'file').map(e => e.name)).toEqual(['file1.txt'])
    })

    it('paths: exists, stat of files and directories, Date timestamps, missing paths', async () => {
      const d = dir()
      const before = Date.now()
      await fs.writeFile(`${d}/stat-file.txt`, 'Hello, stat!')
      await fs.mkdir(`${d}/stat-dir`)
      await churn()
      expect([await fs.exists(`${d}/stat-file.txt`), await fs.exists(`${d}/stat-dir`), await fs.exists(`${d}/nope`)]).toEqual([
        true,
        true,
        false,
      ])
      const f = await fs.stat(`${d}/stat-file.txt`)
      expect(f).toMatchObject({ type: 'file', name: 'stat-file.txt' })
      expect(f.path).toContain('stat-file.txt')
      expect(f.size).toBeGreaterThanOrEqual('Hello, stat!'.length)
      expect(f.createdAt).toBeInstanceOf(Date)
      expect(f.modifiedAt.getTime()).toBeGreaterThanOrEqual(before - 1000)
      expect(await fs.stat(`${d}/stat-dir`)).toMatchObject({ type: 'directory', name: 'stat-dir' })
      expect([await isType(fs, `${d}/stat-file.txt`, 'file'), await isType(fs, `${d}/stat-file.txt`, 'directory')]).toEqual([true, false])
      expect([await isType(fs, `${d}/nope`, 'file'), await isType(fs, `${d}/nope`, 'directory')]).toEqual([false, false])
    })

    it('errors: FileNotFoundError (instanceof) for read, delete, copy and stat of missing paths; non-empty rmdir and reading a directory throw', async () => {
      const d = dir()
      await expect(fs.readFile(`${d}/missing.txt`)).rejects.toThrow(FileNotFoundError)
      await expect(fs.deleteFile(`${d}/missing.txt`)).rejects.toThrow(FileNotFoundError)
      await expect(fs.copyFile(`${d}/missing.txt`, `${d}/dest.txt`)).rejects.toThrow(FileNotFoundError)
      await expect(fs.stat(`${d}/missing.txt`)).rejects.toThrow(FileNotFoundError)
      await fs.writeFile(`${d}/non-empty/file.txt`, 'content')
      await expect(fs.rmdir(`${d}/non-empty`)).rejects.toThrow()
      await expect(fs.readFile(`${d}/non-empty`)).rejects.toThrow()
    })

    it('errors: a read-only filesystem refuses writes and deletes with PermissionError', async () => {
      const d = dir()
      await fs.writeFile(`${d}/kept.txt`, 'kept')
      const ro = new VfsFilesystem({ vfs: fs.vfs, readOnly: true })
      expect(ro.readOnly).toBe(true)
      await expect(ro.writeFile(`${d}/write-attempt.txt`, 'content')).rejects.toThrow(PermissionError)
      await expect(ro.deleteFile(`${d}/kept.txt`)).rejects.toThrow(PermissionError)
      expect(await ro.readFile(`${d}/kept.txt`, text)).toBe('kept')
    })
  })
}

describeMastraFilesystem('a plain workspace', async () => ({
  vfs: await openVfs({ store: memoryStore(), namespace: 'suite', scope: 'plain' }),
  base: '/suite',
}))

describeMastraFilesystem('a registry handle evicted between operations', async () => {
  const registry = vfsRegistry({ store: memoryStore(), maxCached: 1 })
  const vfs = await registry.open('suite', 'handle')
  let k = 0
  return {
    vfs,
    base: '/suite',
    churn: async () => {
      await registry.open('suite', `other-${++k}`)
      expect(registry.cached().map(c => c.scope)).not.toContain('handle')
    },
  }
})

describeMastraFilesystem('a run scope', async () => {
  const vfs = await openVfs({ store: memoryStore(), namespace: 'suite', scope: 'run' })
  return { vfs: scopeRun(vfs, { runId: 'r1' }), base: '/work' }
})

describeMastraFilesystem('a run scope over a registry handle evicted between operations', async () => {
  const registry = vfsRegistry({ store: memoryStore(), maxCached: 1 })
  let k = 0
  return {
    vfs: scopeRun(await registry.open('suite', 'run-handle'), { runId: 'r2' }),
    base: '/outputs',
    churn: async () => {
      await registry.open('suite', `other-${++k}`)
    },
  }
})
