import { beforeEach, describe, expect, it } from 'vitest'
import { createWorkspaceTools, ToolError, type ToolSet } from '../../src/agent/index.js'
import { type RunVfs } from '../../src/index.js'
import { freshRun } from '../agent/workspace.js'

let run: RunVfs
let tools: ToolSet

async function fails(p: Promise<unknown>, code: string): Promise<ToolError> {
  const error = await p.then(
    () => undefined,
    (e: unknown) => e,
  )
  expect(error).toBeInstanceOf(ToolError)
  expect((error as ToolError).code).toBe(code)
  expect((error as ToolError).message).toMatch(/Next: /)
  return error as ToolError
}

beforeEach(async () => {
  ;({ run } = await freshRun())
  await run.seed('/context/a.md', 'alpha\nbeta\ngamma\n')
  await run.seed('/context/sub/b.txt', 'one two\nthree\n')
  tools = createWorkspaceTools({ vfs: run, limits: { readBytes: 200, readLines: 50 } })
})

describe('ls', () => {
  it('lists names, types and sizes, recursively on request', async () => {
    const r = (await tools.ls.execute({ path: '/context' })) as { entries: unknown[] }
    expect(r.entries).toEqual([
      { name: 'a.md', type: 'file', size: 17 },
      { name: 'sub', type: 'directory', size: 0 },
    ])
    const all = (await tools.ls.execute({ path: '/context', recursive: true })) as { entries: Array<{ name: string }> }
    expect(all.entries.map(e => e.name)).toEqual(['a.md', 'sub', 'sub/b.txt'])
  })
  it('tells the model what to do with a file or a missing path', async () => {
    await fails(tools.ls.execute({ path: '/context/a.md' }), 'not-directory')
    await fails(tools.ls.execute({ path: '/work/nope' }), 'not-found')
  })
})

describe('read_file', () => {
  it('returns numbered lines with a header', async () => {
    expect(await tools.read_file.execute({ path: '/context/a.md' })).toBe(
      '/context/a.md: lines 1-3 of 3\n     1\talpha\n     2\tbeta\n     3\tgamma',
    )
  })
  it('pages with offset and limit and says how to continue', async () => {
    const r = (await tools.read_file.execute({ path: '/context/a.md', offset: 2, limit: 1 })) as string
    expect(r).toContain('lines 2-2 of 3')
    expect(r).toContain('\tbeta')
    expect(r).toContain('call read_file({ path: "/context/a.md", offset: 3 })')
  })
  it('caps the bytes of one call and names the next offset', async () => {
    await run.writeFile('/work/long.txt', Array.from({ length: 40 }, (_, i) => `line ${i} ${'x'.repeat(20)}`).join('\n'))
    const r = (await tools.read_file.execute({ path: '/work/long.txt' })) as string
    expect(r).toMatch(/lines 1-\d+ of 40/)
    expect(r).toMatch(/more lines: call read_file\(\{ path: "\/work\/long.txt", offset: \d+ \}\)/)
  })
  it('cuts a single over-long line and says so', async () => {
    await run.writeFile('/work/wide.txt', 'y'.repeat(1000))
    expect(await tools.read_file.execute({ path: '/work/wide.txt' })).toMatch(/line 1 is longer than 200 characters and was cut/)
  })
  it('errors: missing file, directory, offset past the end, bad input', async () => {
    await fails(tools.read_file.execute({ path: '/context/missing.md' }), 'not-found')
    await fails(tools.read_file.execute({ path: '/context/sub' }), 'is-directory')
    await fails(tools.read_file.execute({ path: '/context/a.md', offset: 9 }), 'invalid-input')
    const e = await fails(tools.read_file.execute({ path: 5 } as never), 'invalid-input')
    expect(e.message).toMatch(/path/)
  })
  it('describes binary files instead of dumping them', async () => {
    await run.writeFile('/work/b.bin', new Uint8Array([1, 0, 2]))
    expect(await tools.read_file.execute({ path: '/work/b.bin' })).toMatch(/binary file/)
  })
})

describe('write_file', () => {
  it('creates files with parents and replaces them', async () => {
    expect(await tools.write_file.execute({ path: '/work/x/y.md', content: 'hi' })).toMatch(/^Created \/work\/x\/y.md \(2 bytes/)
    expect(await tools.write_file.execute({ path: '/work/x/y.md', content: 'ho' })).toMatch(/^Replaced/)
    expect(await run.readFile('/work/x/y.md', 'utf8')).toBe('ho')
  })
  it('errors: read-only root, overwrite false, directory, stale', async () => {
    const e = await fails(tools.write_file.execute({ path: '/context/a.md', content: 'x' }), 'permission')
    expect(e.message).toMatch(/read-only/)
    await run.writeFile('/work/f.md', 'v1')
    await fails(tools.write_file.execute({ path: '/work/f.md', content: 'x', overwrite: false }), 'exists')
    await fails(tools.write_file.execute({ path: '/context/sub', content: 'x' }), 'is-directory')
    await tools.read_file.execute({ path: '/work/f.md' })
    await run.writeFile('/work/f.md', 'changed by someone else')
    await fails(tools.write_file.execute({ path: '/work/f.md', content: 'mine' }), 'stale')
  })
})

describe('edit_file', () => {
  beforeEach(async () => {
    await run.writeFile('/work/e.md', 'a = 1\nb = 1\nc = 2\n')
  })
  it('replaces one exact match after a read', async () => {
    await tools.read_file.execute({ path: '/work/e.md' })
    expect(await tools.edit_file.execute({ path: '/work/e.md', old_string: 'c = 2', new_string: 'c = 3' })).toBe(
      'Replaced 1 occurrence in /work/e.md.',
    )
    expect(await run.readFile('/work/e.md', 'utf8')).toBe('a = 1\nb = 1\nc = 3\n')
    // Its own edit does not make the file stale for the model.
    await tools.edit_file.execute({ path: '/work/e.md', old_string: 'a = 1', new_string: 'a = 0' })
  })
  it('replace_all replaces every occurrence', async () => {
    await tools.read_file.execute({ path: '/work/e.md' })
    expect(await tools.edit_file.execute({ path: '/work/e.md', old_string: '= 1', new_string: '= 9', replace_all: true })).toBe(
      'Replaced 2 occurrences in /work/e.md.',
    )
    expect(await run.readFile('/work/e.md', 'utf8')).toBe('a = 9\nb = 9\nc = 2\n')
  })
  it('errors: not read, no match, several matches (with lines), stale, same text', async () => {
    await fails(tools.edit_file.execute({ path: '/work/e.md', old_string: 'c = 2', new_string: 'x' }), 'not-read')
    await tools.read_file.execute({ path: '/work/e.md' })
    await fails(tools.edit_file.execute({ path: '/work/e.md', old_string: 'zzz', new_string: 'x' }), 'no-match')
    const several = await fails(tools.edit_file.execute({ path: '/work/e.md', old_string: '= 1', new_string: 'x' }), 'several-matches')
    expect(several.message).toMatch(/2 times .*lines 1, 2/)
    await fails(tools.edit_file.execute({ path: '/work/e.md', old_string: 'a', new_string: 'a' }), 'invalid-input')
    await run.writeFile('/work/e.md', 'a = 1\nb = 1\nc = 2\n// touched by run_js\n')
    const stale = await fails(tools.edit_file.execute({ path: '/work/e.md', old_string: 'c = 2', new_string: 'x' }), 'stale')
    expect(stale.message).toMatch(/read_file/)
  })
})

describe('move, delete, mkdir', () => {
  it('moves files and directories, refuses existing targets without overwrite', async () => {
    await run.writeFile('/work/d/1.md', '1')
    await run.writeFile('/work/d/2.md', '2')
    expect(await tools.move.execute({ from: '/work/d', to: '/outputs/d' })).toBe('Moved /work/d to /outputs/d.')
    expect(await run.readdir('/outputs/d')).toEqual(['1.md', '2.md'])
    await fails(tools.move.execute({ from: '/outputs/d/1.md', to: '/outputs/d/2.md' }), 'exists')
    await tools.move.execute({ from: '/outputs/d/1.md', to: '/outputs/d/2.md', overwrite: true })
    expect(await run.readFile('/outputs/d/2.md', 'utf8')).toBe('1')
    await fails(tools.move.execute({ from: '/work/none', to: '/work/x' }), 'not-found')
    await fails(tools.move.execute({ from: '/context/a.md', to: '/work/a.md' }), 'permission')
  })
  it('deletes files, and directories only with recursive', async () => {
    await run.writeFile('/work/d/1.md', '1')
    await fails(tools.delete.execute({ path: '/work/d' }), 'not-empty')
    expect(await tools.delete.execute({ path: '/work/d', recursive: true })).toBe('Deleted /work/d (directory).')
    await fails(tools.delete.execute({ path: '/work/d' }), 'not-found')
  })
  it('mkdir creates parents and is idempotent', async () => {
    await tools.mkdir.execute({ path: '/work/a/b/c' })
    await tools.mkdir.execute({ path: '/work/a/b/c' })
    expect((await run.stat('/work/a/b')).type).toBe('directory')
    await fails(tools.mkdir.execute({ path: '/skills/x' }), 'permission')
  })
})

describe('glob and grep', () => {
  it('glob finds files across roots', async () => {
    const r = (await tools.glob.execute({ pattern: '/context/**/*' })) as { paths: string[] }
    expect(r.paths).toEqual(['/context/a.md', '/context/sub/b.txt'])
    expect(((await tools.glob.execute({ pattern: '/work/*.none' })) as { note: string }).note).toMatch(/No match/)
  })
  it('grep searches literal text by default and regex on request', async () => {
    const lit = (await tools.grep.execute({ pattern: 'a.' })) as { matches: unknown[]; note?: string }
    expect(lit.matches).toEqual([])
    expect(lit.note).toMatch(/literal/)
    const re = (await tools.grep.execute({ pattern: '^(be|ga)', regex: true, path: '/context' })) as {
      matches: Array<{ path: string; line: number }>
    }
    expect(re.matches.map(m => [m.path, m.line])).toEqual([
      ['/context/a.md', 2],
      ['/context/a.md', 3],
    ])
    const inDir = (await tools.grep.execute({ pattern: 'three', path: '/context/sub' })) as { matches: Array<{ text: string }> }
    expect(inDir.matches[0].text).toBe('three')
  })
  it('caps matches and says how to narrow', async () => {
    await run.writeFile('/work/many.txt', Array.from({ length: 500 }, () => 'hit').join('\n'))
    const r = (await createWorkspaceTools({ vfs: run, limits: { grepMatches: 10 } }).grep.execute({ pattern: 'hit' })) as {
      matches: unknown[]
      truncated: boolean
      note: string
    }
    expect(r.matches).toHaveLength(10)
    expect(r.truncated).toBe(true)
    expect(r.note).toMatch(/narrow/)
  })
  it('runs nested repetitions in linear time and refuses what RE2 cannot run', async () => {
    await run.writeFile('/work/long.txt', 'a'.repeat(5_000) + '\n' + 'ab'.repeat(2_000) + '\n')
    for (const p of ['(a+)+$', '(\\w*\\s?)*x', '(a|ab)*c', '((ab)*)+', '(x+){2,}']) {
      const r = (await tools.grep.execute({ pattern: p, regex: true, path: '/work' })) as { matches: unknown[] }
      expect(Array.isArray(r.matches)).toBe(true)
    }
    for (const p of ['(a)\\1', 'a(?=b)'])
      expect((await fails(tools.grep.execute({ pattern: p, regex: true }), 'invalid-input')).message).toMatch(/RE2/)
    await fails(tools.grep.execute({ pattern: '(unclosed', regex: true }), 'invalid-input')
    await fails(tools.grep.execute({ pattern: 'x'.repeat(600) }), 'unsafe-pattern')
    // Safe ones pass.
    for (const p of ['(foo|bar)', '(ab)+', '\\d+-\\d+', '[(+]*']) await tools.grep.execute({ pattern: p, regex: true })
  })
})
