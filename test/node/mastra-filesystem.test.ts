import {
  DirectoryNotEmptyError,
  DirectoryNotFoundError,
  FileExistsError,
  FileNotFoundError,
  FilesystemError,
  IsDirectoryError,
  MastraFilesystem,
  NotDirectoryError,
  PermissionError,
  StaleFileError,
  Workspace,
  createWorkspaceTools,
} from '@mastra/core/workspace'
import { beforeEach, describe, expect, it } from 'vitest'
import { memoryStore, openVfs, scopeRun, type Vfs } from '../../src/index.js'
import { VfsFilesystem } from '../../src/mastra/index.js'

let vfs: Vfs
let fs: VfsFilesystem

beforeEach(async () => {
  vfs = await openVfs({ store: memoryStore(), namespace: 'mastra', scope: 's1' })
  fs = new VfsFilesystem({ vfs })
})

/** Waits until Date.now() has moved on, so the next write gets a different mtime. */
async function nextMillisecond(): Promise<void> {
  const t = Date.now()
  while (Date.now() === t) await new Promise(r => setTimeout(r, 1))
}

/** What the built-in tools need in `execute`'s context outside an agent run. */
function toolContext(workspace: Workspace) {
  return { workspace, observe: { span: (_n: string, f: () => unknown) => f(), log() {} } } as never
}

describe('VfsFilesystem', () => {
  it('is a MastraFilesystem, ready from the start, with id, provider and info', async () => {
    expect(fs).toBeInstanceOf(MastraFilesystem)
    expect(fs.status).toBe('ready')
    await fs._init()
    expect(fs.status).toBe('ready')
    expect([fs.id, fs.name, fs.provider]).toEqual([expect.stringMatching(/^agent-vfs:mastra\/s1:/), 'VfsFilesystem', 'agent-vfs'])
    expect(fs.readOnly).toBe(false)
    expect(fs.getInfo()).toMatchObject({
      provider: 'agent-vfs',
      status: 'ready',
      readOnly: false,
      metadata: { namespace: 'mastra', scope: 's1' },
    })
    expect(fs.getInstructions()).toMatch(/relative paths resolve against "\/"/)
    expect(fs.resolveAbsolutePath()).toBeUndefined()
    expect(() => new VfsFilesystem({} as never)).toThrow(/needs \{ vfs \}/)
  })

  it('creates missing parents on write unless recursive === false', async () => {
    await fs.writeFile('/a/b/c.txt', 'deep')
    expect(await vfs.readFile('/a/b/c.txt', 'utf8')).toBe('deep')
    expect((await vfs.stat('/a/b')).type).toBe('directory')
    await fs.appendFile('/x/y/log.txt', 'one')
    await fs.appendFile('/x/y/log.txt', ' two')
    expect(await vfs.readFile('/x/y/log.txt', 'utf8')).toBe('one two')

    await expect(fs.writeFile('/missing/f.txt', 'x', { recursive: false })).rejects.toBeInstanceOf(DirectoryNotFoundError)
    expect(await vfs.exists('/missing')).toBe(false)
    await expect(fs.writeFile('/a/b/c.txt/f.txt', 'x', { recursive: false })).rejects.toBeInstanceOf(NotDirectoryError)
    await expect(fs.writeFile('/a/b/c.txt/f.txt', 'x')).rejects.toBeInstanceOf(NotDirectoryError)
    await fs.writeFile('/a/b/d.txt', 'ok', { recursive: false })
    expect(await vfs.readFile('/a/b/d.txt', 'utf8')).toBe('ok')
  })

  it('mkdir is recursive by default and idempotent; a file in the way is FileExistsError', async () => {
    await fs.mkdir('/p/q/r')
    await fs.mkdir('/p/q/r')
    await fs.mkdir('/p/q/r', { recursive: true })
    await fs.mkdir('/p/q', { recursive: false })
    expect((await fs.stat('/p/q/r')).type).toBe('directory')
    await expect(fs.mkdir('/nope/child', { recursive: false })).rejects.toBeInstanceOf(DirectoryNotFoundError)
    await fs.writeFile('/p/file', 'x')
    await expect(fs.mkdir('/p/file')).rejects.toBeInstanceOf(FileExistsError)
    await expect(fs.mkdir('/p/file/sub')).rejects.toBeInstanceOf(NotDirectoryError)
  })

  it('accepts relative paths as the model types them', async () => {
    await fs.writeFile('notes/a.md', '# A')
    expect(await vfs.readFile('/notes/a.md', 'utf8')).toBe('# A')
    expect(await fs.readFile('./notes/a.md', { encoding: 'utf-8' })).toBe('# A')
    expect(await fs.exists('notes/a.md')).toBe(true)
    expect(await fs.exists('notes//a.md')).toBe(true)
    expect(await fs.exists('../etc/passwd')).toBe(false)
    const s = await fs.stat('notes/a.md')
    expect([s.name, s.path]).toEqual(['a.md', '/notes/a.md'])
    expect((await fs.readdir('notes')).map(e => e.name)).toEqual(['a.md'])
    expect((await fs.readdir('.')).map(e => e.name)).toEqual(['notes'])
    await fs.mkdir('notes/sub')
    await fs.moveFile('notes/a.md', 'notes/sub/b.md')
    await fs.copyFile('notes/sub/b.md', 'c.md')
    expect(await vfs.readdir('/', { recursive: true })).toEqual(['c.md', 'notes', 'notes/sub', 'notes/sub/b.md'])
    expect(await fs.realpath('notes/sub')).toBe('/notes/sub')
    await expect(fs.readFile('../x')).rejects.toBeInstanceOf(FilesystemError)
  })

  it('readdir: names, types and sizes; recursive names relative; maxDepth; extension filter', async () => {
    await fs.writeFile('/d/x.txt', 'xx')
    await fs.writeFile('/d/y.md', 'yyy')
    await fs.writeFile('/d/sub/z.txt', 'z')
    await fs.writeFile('/d/sub/deeper/w.txt', 'w')
    expect(await fs.readdir('/d')).toEqual([
      { name: 'sub', type: 'directory' },
      { name: 'x.txt', type: 'file', size: 2 },
      { name: 'y.md', type: 'file', size: 3 },
    ])
    const all = await fs.readdir('/d', { recursive: true })
    expect(all.map(e => `${e.type[0]} ${e.name}`)).toEqual([
      'd sub',
      'd sub/deeper',
      'f sub/deeper/w.txt',
      'f sub/z.txt',
      'f x.txt',
      'f y.md',
    ])
    expect((await fs.readdir('/d', { recursive: true, maxDepth: 1 })).map(e => e.name)).toEqual([
      'sub',
      'sub/deeper',
      'sub/z.txt',
      'x.txt',
      'y.md',
    ])
    expect((await fs.readdir('/d', { recursive: true, maxDepth: 0 })).map(e => e.name)).toEqual(['sub', 'x.txt', 'y.md'])
    expect((await fs.readdir('/d', { recursive: true, extension: '.txt' })).map(e => e.name)).toEqual([
      'sub',
      'sub/deeper',
      'sub/deeper/w.txt',
      'sub/z.txt',
      'x.txt',
    ])
    expect((await fs.readdir('/d', { extension: ['md'] })).map(e => e.name)).toEqual(['sub', 'y.md'])
    expect(await fs.readdir('/d/sub/deeper', { recursive: true })).toEqual([{ name: 'w.txt', type: 'file', size: 1 }])
    await fs.mkdir('/empty')
    expect(await fs.readdir('/empty')).toEqual([])
    await expect(fs.readdir('/nope')).rejects.toBeInstanceOf(DirectoryNotFoundError)
    await expect(fs.readdir('/d/x.txt')).rejects.toBeInstanceOf(NotDirectoryError)
  })

  it('stat: basename, absolute path, Dates, sizes, mimeType for files only', async () => {
    const before = Date.now()
    await fs.writeFile('/m/readme.md', 'héllo')
    await fs.writeFile('/m/pic.png', new Uint8Array([0x89, 0x50, 0x4e, 0x47]))
    await fs.writeFile('/m/rows.jsonl', '{"a":1}\n')
    const md = await fs.stat('/m/readme.md')
    expect(md).toMatchObject({ name: 'readme.md', path: '/m/readme.md', type: 'file', size: 6, mimeType: 'text/markdown' })
    expect(md.modifiedAt).toBeInstanceOf(Date)
    expect(md.createdAt).toBeInstanceOf(Date)
    expect(md.modifiedAt.getTime()).toBeGreaterThanOrEqual(before)
    expect(md.modifiedAt.getTime()).toBe((await vfs.stat('/m/readme.md')).mtime)
    expect((await fs.stat('/m/pic.png')).mimeType).toBe('image/png')
    // JSON Lines is text; Mastra's read_file would treat application/jsonl as binary.
    expect((await fs.stat('/m/rows.jsonl')).mimeType).toBe('text/plain')
    const dir = await fs.stat('/m')
    expect(dir).toMatchObject({ name: 'm', path: '/m', type: 'directory', size: 0 })
    expect(dir.mimeType).toBeUndefined()
    expect((await fs.stat('/')).type).toBe('directory')
    await expect(fs.stat('/m/none')).rejects.toBeInstanceOf(FileNotFoundError)
  })

  it("mimeType drives Mastra's read_file: text as text, PNG as a media part, zip as metadata", async () => {
    const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])
    await fs.writeFile('/m/readme.md', 'line one\nline two\n')
    await fs.writeFile('/m/pic.png', png)
    await fs.writeFile('/m/pack.zip', new Uint8Array([0x50, 0x4b, 3, 4]))
    const workspace = new Workspace({ filesystem: fs })
    const tools = await createWorkspaceTools(workspace)
    const read = tools.mastra_workspace_read_file
    const text = await read.execute({ path: 'm/readme.md', showLineNumbers: true }, toolContext(workspace))
    expect(text).toMatch(/line one[\s\S]*line two/)
    const media = await read.execute({ path: 'm/pic.png', showLineNumbers: true }, toolContext(workspace))
    expect(media).toMatchObject({ __workspaceMedia: true, mediaType: 'image/png', data: Buffer.from(png).toString('base64') })
    const zip = await read.execute({ path: 'm/pack.zip', showLineNumbers: true }, toolContext(workspace))
    expect(zip).toMatch(/application\/zip\) — binary file not readable as text/)
  })

  it('reads a Buffer without encoding, a string with one', async () => {
    await fs.writeFile('/b.bin', Buffer.from([1, 2, 250]))
    const raw = await fs.readFile('/b.bin')
    expect(Buffer.isBuffer(raw)).toBe(true)
    expect([...(raw as Buffer)]).toEqual([1, 2, 250])
    expect(await fs.readFile('/b.bin', { encoding: 'base64' })).toBe(Buffer.from([1, 2, 250]).toString('base64'))
    expect(await fs.readFile('/b.bin', { encoding: 'hex' })).toBe('0102fa')
    await fs.writeFile('/t.txt', 'ünï')
    expect(await fs.readFile('/t.txt', { encoding: 'utf8' })).toBe('ünï')
    expect((await fs.readFile('/t.txt')).toString('utf-8')).toBe('ünï')
  })

  it("throws @mastra/core's own error classes (instanceof) for every failure", async () => {
    await fs.writeFile('/dir/f.txt', 'x')
    await expect(fs.readFile('/none.txt')).rejects.toBeInstanceOf(FileNotFoundError)
    await expect(fs.readFile('/dir')).rejects.toBeInstanceOf(IsDirectoryError)
    await expect(fs.deleteFile('/none.txt')).rejects.toBeInstanceOf(FileNotFoundError)
    await fs.deleteFile('/none.txt', { force: true })
    await expect(fs.deleteFile('/dir')).rejects.toBeInstanceOf(IsDirectoryError)
    await expect(fs.writeFile('/dir/f.txt', 'y', { overwrite: false })).rejects.toBeInstanceOf(FileExistsError)
    expect(await vfs.readFile('/dir/f.txt', 'utf8')).toBe('x')
    await fs.writeFile('/dir/new.txt', 'n', { overwrite: false })
    await expect(fs.writeFile('/dir', 'y')).rejects.toBeInstanceOf(IsDirectoryError)
    await expect(fs.copyFile('/none', '/x')).rejects.toBeInstanceOf(FileNotFoundError)
    await expect(fs.copyFile('/dir', '/dir2')).rejects.toBeInstanceOf(IsDirectoryError)
    await expect(fs.copyFile('/dir/f.txt', '/dir/new.txt', { overwrite: false })).rejects.toBeInstanceOf(FileExistsError)
    await expect(fs.moveFile('/none', '/x')).rejects.toBeInstanceOf(FileNotFoundError)
    await expect(fs.moveFile('/dir/f.txt', '/dir/new.txt', { overwrite: false })).rejects.toBeInstanceOf(FileExistsError)
    await expect(fs.rmdir('/dir')).rejects.toBeInstanceOf(DirectoryNotEmptyError)
    await expect(fs.rmdir('/nodir')).rejects.toBeInstanceOf(DirectoryNotFoundError)
    await fs.rmdir('/nodir', { force: true })
    await expect(fs.rmdir('/dir/f.txt')).rejects.toBeInstanceOf(NotDirectoryError)
    await expect(fs.stat('/none')).rejects.toBeInstanceOf(FileNotFoundError)
    await expect(fs.realpath('/none')).rejects.toBeInstanceOf(FileNotFoundError)
    const error = await fs.readFile('/none.txt').catch((e: unknown) => e)
    expect(error).toMatchObject({ code: 'ENOENT', path: '/none.txt' })
    expect((error as Error & { cause: { name: string } }).cause.name).toBe('VfsError')
    // Errors without a class of their own keep the workspace's code and hint.
    const quota = new VfsFilesystem({
      vfs: await openVfs({ store: memoryStore(), namespace: 'q', scope: 'q', quota: { maxBytes: 4 } }),
    })
    const big = await quota.writeFile('/big', 'too large').catch((e: unknown) => e)
    expect(big).toBeInstanceOf(FilesystemError)
    expect(big).toMatchObject({ code: 'EQUOTA' })
    // A read-only root of a run scope refuses writes with PermissionError.
    const run = scopeRun(vfs, { runId: 'r1' })
    await run.seed('/context/in.md', 'seeded')
    const runFs = new VfsFilesystem({ vfs: run })
    expect(await runFs.readFile('context/in.md', { encoding: 'utf-8' })).toBe('seeded')
    await expect(runFs.writeFile('context/in.md', 'changed')).rejects.toBeInstanceOf(PermissionError)
    await runFs.writeFile('work/out.md', 'fine')
    expect(await vfs.readFile('/runs/r1/work/out.md', 'utf8')).toBe('fine')
  })

  it('copies, moves, appends and removes trees', async () => {
    await fs.writeFile('/src/a.txt', 'a')
    await fs.writeFile('/src/s/b.txt', 'b')
    await fs.copyFile('/src', '/dst', { recursive: true })
    expect(await vfs.readdir('/dst', { recursive: true })).toEqual(['a.txt', 's', 's/b.txt'])
    await fs.writeFile('/dst/a.txt', 'kept')
    await fs.writeFile('/src/c.txt', 'c')
    await fs.copyFile('/src', '/dst', { recursive: true, overwrite: false })
    expect(await vfs.readFile('/dst/a.txt', 'utf8')).toBe('kept')
    expect(await vfs.readFile('/dst/c.txt', 'utf8')).toBe('c')
    await fs.copyFile('/src/a.txt', '/dst/a.txt')
    expect(await vfs.readFile('/dst/a.txt', 'utf8')).toBe('a')
    await fs.moveFile('/dst', '/moved/here')
    expect(await vfs.exists('/dst')).toBe(false)
    expect(await vfs.readFile('/moved/here/s/b.txt', 'utf8')).toBe('b')
    await fs.moveFile('/src/a.txt', '/src/c.txt')
    expect(await vfs.readFile('/src/c.txt', 'utf8')).toBe('a')
    await fs.rmdir('/moved', { recursive: true })
    expect(await vfs.exists('/moved')).toBe(false)
    await fs.mkdir('/e')
    await fs.rmdir('/e')
    expect(await fs.exists('/e')).toBe(false)
  })

  it('expectedMtime: equal mtime writes, a changed file is StaleFileError with both times', async () => {
    await fs.writeFile('/doc.md', 'v1')
    const seen = (await fs.stat('/doc.md')).modifiedAt
    await nextMillisecond()
    await fs.writeFile('/doc.md', 'v2', { expectedMtime: seen })
    expect(await vfs.readFile('/doc.md', 'utf8')).toBe('v2')

    const read = (await fs.stat('/doc.md')).modifiedAt
    await nextMillisecond()
    await vfs.writeFile('/doc.md', 'someone else') // e.g. a run_js program
    const stale = await fs.writeFile('/doc.md', 'mine', { expectedMtime: read }).catch((e: unknown) => e)
    expect(stale).toBeInstanceOf(StaleFileError)
    expect((stale as StaleFileError).expectedMtime).toEqual(read)
    expect((stale as StaleFileError).actualMtime.getTime()).toBe((await vfs.stat('/doc.md')).mtime)
    expect(await vfs.readFile('/doc.md', 'utf8')).toBe('someone else')

    // A new file (deleted since, or never there) cannot conflict.
    await fs.writeFile('/fresh.md', 'new', { expectedMtime: read })
    expect(await vfs.readFile('/fresh.md', 'utf8')).toBe('new')
  })

  it('expectedMtime waits for a write of the file still in flight, then checks its version', async () => {
    await fs.writeFile('/doc.md', 'v1')
    await nextMillisecond()
    const inFlight = vfs.writeFile('/doc.md', 'v2') // not awaited: pending, no version yet
    const seen = (await fs.stat('/doc.md')).modifiedAt
    await fs.writeFile('/doc.md', 'v3', { expectedMtime: seen })
    await inFlight
    expect(await vfs.readFile('/doc.md', 'utf8')).toBe('v3')
  })

  it("edit_file through Mastra's tools refuses a file changed since it was read", async () => {
    await fs.writeFile('/notes.md', 'alpha beta\n')
    const workspace = new Workspace({ filesystem: fs })
    const tools = await createWorkspaceTools(workspace)
    const ctx = toolContext(workspace)
    await tools.mastra_workspace_read_file.execute({ path: 'notes.md', showLineNumbers: true }, ctx)
    await tools.mastra_workspace_edit_file.execute({ path: 'notes.md', old_string: 'alpha', new_string: 'ALPHA', replace_all: false }, ctx)
    expect(await vfs.readFile('/notes.md', 'utf8')).toBe('ALPHA beta\n')
    await tools.mastra_workspace_read_file.execute({ path: 'notes.md', showLineNumbers: true }, ctx)
    await nextMillisecond()
    await vfs.writeFile('/notes.md', 'ALPHA beta gamma\n')
    const out = await tools.mastra_workspace_edit_file
      .execute({ path: 'notes.md', old_string: 'beta', new_string: 'BETA', replace_all: false }, ctx)
      .catch((e: unknown) => e)
    expect(out).toBeInstanceOf(StaleFileError)
    expect(await vfs.readFile('/notes.md', 'utf8')).toBe('ALPHA beta gamma\n')
    // write_file on a new file: the pre-write stat must be a FileNotFoundError (instanceof), or this throws.
    expect(await tools.mastra_workspace_write_file.execute({ path: 'brand/new.md', content: 'hi', overwrite: true }, ctx)).toMatch(
      /Wrote 2 bytes/,
    )
    expect(await vfs.readFile('/brand/new.md', 'utf8')).toBe('hi')
  })

  it('readOnly: refuses every change with PermissionError, reads work, Mastra offers no write tools', async () => {
    await vfs.writeFile('/r.md', 'read me')
    const ro = new VfsFilesystem({ vfs, readOnly: true })
    expect(ro.readOnly).toBe(true)
    expect(await ro.readFile('r.md', { encoding: 'utf-8' })).toBe('read me')
    for (const change of [
      () => ro.writeFile('/w.md', 'x'),
      () => ro.appendFile('/r.md', 'x'),
      () => ro.deleteFile('/r.md'),
      () => ro.mkdir('/d'),
      () => ro.rmdir('/'),
      () => ro.copyFile('/r.md', '/c.md'),
      () => ro.moveFile('/r.md', '/c.md'),
    ]) {
      await expect(change()).rejects.toBeInstanceOf(PermissionError)
    }
    expect(await vfs.readdir('/')).toEqual(['r.md'])
    const names = Object.keys(await createWorkspaceTools(new Workspace({ filesystem: ro })))
    expect(names).toContain('mastra_workspace_read_file')
    expect(names).toContain('mastra_workspace_list_files')
    for (const write of ['write_file', 'edit_file', 'delete', 'mkdir']) expect(names).not.toContain(`mastra_workspace_${write}`)
    const rw = Object.keys(await createWorkspaceTools(new Workspace({ filesystem: fs })))
    expect(rw).toContain('mastra_workspace_write_file')
  })

  it("Mastra's skills load from the workspace: discovery, instructions, references", async () => {
    await vfs.writeFile(
      '/skills/appendix-style/SKILL.md',
      '---\nname: appendix-style\ndescription: How to format a production appendix\n---\n\nUse one bullet per character.\n',
    )
    await vfs.writeFile('/skills/appendix-style/references/tone.md', 'Dry and factual.')
    await vfs.writeFile('/skills/not-a-skill/readme.md', 'no SKILL.md here')
    const workspace = new Workspace({ filesystem: fs, skills: ['/skills'] })
    const skills = workspace.skills!
    const list = await skills.list()
    expect(list.map(s => [s.name, s.description])).toEqual([['appendix-style', 'How to format a production appendix']])
    const skill = await skills.get('appendix-style')
    expect(skill?.instructions).toContain('Use one bullet per character.')
    expect(skill?.references).toEqual(['tone.md'])
    expect(await skills.getReference('appendix-style', 'references/tone.md')).toBe('Dry and factual.')
    // A skill added later is found after refresh() (directory mtimes do not follow their contents).
    await fs.writeFile('skills/second/SKILL.md', '---\nname: second\ndescription: Another one\n---\nBody.\n')
    await skills.refresh()
    expect((await skills.list()).map(s => s.name).sort()).toEqual(['appendix-style', 'second'])
  })
})
