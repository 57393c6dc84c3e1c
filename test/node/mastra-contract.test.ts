/**
 * Mastra's own contract (issue 8 §3): what Mastra's QuickJS transport tests and its
 * `WorkspaceFilesystem` interface promise, checked against real Mastra classes and real QuickJS.
 */
import { RequestContext } from '@mastra/core/request-context'
import {
  DirectoryNotFoundError,
  NotDirectoryError,
  UnsupportedGrepPatternError,
  Workspace,
  createWorkspaceTools,
} from '@mastra/core/workspace'
import { describe, expect, it } from 'vitest'
import { memoryStore, openVfs, variantEngine, type QuickJsEngine } from '../../src/index.js'
import { MAX_GREP_CONTEXT, MAX_GREP_MATCHES } from '../../src/internal.js'
import { QuickJsCodeModeTransport, VfsFilesystem } from '../../src/mastra/index.js'

/** What `tool.execute` needs outside an agent. */
function toolContext(workspace?: Workspace) {
  return { workspace, observe: { span: (_n: string, f: () => unknown) => f(), log() {} } } as never
}

function run(transport: QuickJsCodeModeTransport, program: string, extra: Partial<Parameters<QuickJsCodeModeTransport['run']>[0]> = {}) {
  return transport.run({ program, toolIds: [], dispatch: async () => undefined, timeout: 5000, ...extra })
}

describe('QuickJsCodeModeTransport: Mastra transport contract', () => {
  it('reports a tool result that cannot cross the JSON bridge as one failure, not a success', async () => {
    const circular: Record<string, unknown> = { name: 'loop' }
    circular.self = circular
    for (const [label, value] of [
      ['circular', circular],
      ['bigint', { n: 1n }],
      ['function', () => 1],
    ] as const) {
      const outcomes: Array<[string, boolean, string | undefined]> = []
      const r = await run(new QuickJsCodeModeTransport(), `return await external_ping({})`, {
        toolIds: ['ping'],
        dispatch: async () => value,
        onExternalResult: (tool, ms, error) => outcomes.push([tool, typeof ms === 'number', (error as Error | undefined)?.message]),
      })
      expect(r.success, label).toBe(false)
      expect(r.error?.name, label).toBe('TypeError')
      expect(r.error?.message, label).toMatch(/external_ping returned a value that is not JSON-serializable/)
      expect(outcomes, label).toHaveLength(1)
      expect(outcomes[0]![0]).toBe('ping')
      expect(outcomes[0]![1]).toBe(true)
      expect(outcomes[0]![2], label).toMatch(/not JSON-serializable/)
    }
  })

  it('still reports success once for a result that crosses, and the dispatcher error for a failing one', async () => {
    const outcomes: unknown[] = []
    const r = await run(
      new QuickJsCodeModeTransport(),
      `const a = await external_ok({}); try { await external_bad({}) } catch {} return a`,
      {
        toolIds: ['ok', 'bad'],
        dispatch: async tool => {
          if (tool === 'bad') throw new Error('boom')
          return { fine: true }
        },
        onExternalResult: (tool, _ms, error) => outcomes.push([tool, (error as Error | undefined)?.message]),
      },
    )
    expect(r).toEqual({ success: true, result: { fine: true }, logs: [] })
    expect(outcomes).toEqual([
      ['ok', undefined],
      ['bad', 'boom'],
    ])
  })

  it('a result that is not JSON says what and where, not just "circular reference"', async () => {
    const transport = new QuickJsCodeModeTransport()
    const cyc = await run(transport, `const a = { list: [1, 2] }; a.list.push(a); return a`)
    expect(cyc.success).toBe(false)
    expect(cyc.error?.name).toBe('TypeError')
    expect(cyc.error?.message).toMatch(/not JSON-serializable/)
    expect(cyc.error?.message).toMatch(/circular/)
    expect(cyc.error?.message).toMatch(/"2"/) // the key that closes the cycle
    let dispatched = 0
    const arg = await run(transport, `const o = { a: {} }; o.a.back = o; try { await external_t(o) } catch (e) { return e.message }`, {
      toolIds: ['t'],
      dispatch: async () => void dispatched++,
    })
    expect(arg.result).toBe('the input of external_t is not JSON-serializable: found a circular reference (at "back")')
    expect(dispatched).toBe(0)
    const fn = await run(transport, `return { f() {} }`)
    expect(fn.error?.message).toMatch(/the result is not JSON-serializable: found a function \(at "f"\)/)
  })

  it('close() releases the instances it keeps; later runs start new ones', async () => {
    let instantiated = 0
    const real = variantEngine()
    const counting: QuickJsEngine = { instantiate: memory => (instantiated++, real.instantiate(memory)) }
    const transport = new QuickJsCodeModeTransport({ engine: counting })
    expect((await run(transport, `return 1`)).result).toBe(1)
    expect((await run(transport, `return 2`)).result).toBe(2)
    expect(instantiated).toBe(1) // the idle instance was reused
    transport.close()
    expect((await run(transport, `return 3`)).result).toBe(3)
    expect(instantiated).toBe(2)
    transport.close()
    transport.close() // idempotent
  })
})

describe('VfsFilesystem: Mastra filesystem contract', () => {
  async function fresh(scope = 's1') {
    const vfs = await openVfs({ store: memoryStore(), namespace: 'contract', scope })
    return { vfs, fs: new VfsFilesystem({ vfs }) }
  }

  it('every instance has its own id, also on the same namespace and scope', async () => {
    const { vfs, fs } = await fresh()
    const again = new VfsFilesystem({ vfs })
    expect(fs.id).not.toBe(again.id)
    expect(fs.id).toMatch(/^agent-vfs:contract\/s1:/)
    expect(new VfsFilesystem({ vfs, id: 'mine' }).id).toBe('mine')
    // Two Workspaces over two filesystems of one scope stay apart in Mastra's eyes.
    expect(new Workspace({ filesystem: fs }).filesystem!.id).not.toBe(new Workspace({ filesystem: again }).filesystem!.id)
  })

  it("instructions may be Mastra's InstructionsOption function of the defaults and the request context", async () => {
    const { vfs } = await fresh()
    const seen: unknown[] = []
    const fs = new VfsFilesystem({
      vfs,
      instructions: ({ defaultInstructions, requestContext }) => {
        seen.push(requestContext?.get('locale'))
        return `${defaultInstructions}\nLocale: ${requestContext?.get('locale') ?? 'none'}`
      },
    })
    const requestContext = new RequestContext()
    requestContext.set('locale', 'de')
    const text = fs.getInstructions({ requestContext })
    expect(text).toMatch(/persistent virtual workspace/)
    expect(text).toMatch(/Locale: de$/)
    expect(fs.getInstructions()).toMatch(/Locale: none$/)
    expect(seen).toEqual(['de', undefined])
    // Mastra puts it into the agent's prompt through the Workspace.
    expect(await new Workspace({ filesystem: fs }).getInstructionsAsync({ requestContext })).toMatch(/Locale: de/)
    expect(new VfsFilesystem({ vfs, instructions: 'fixed' }).getInstructions({ requestContext })).toBe('fixed')
  })

  it('walk(): every entry under a path, relative POSIX paths, basenames, maxDepth, hidden entries only on request', async () => {
    const { vfs, fs } = await fresh()
    await vfs.writeFile('/proj/a.txt', 'aa')
    await vfs.writeFile('/proj/src/b.ts', 'bbb')
    await vfs.writeFile('/proj/src/deep/c.md', 'c')
    await vfs.writeFile('/proj/.git/HEAD', 'ref')
    await vfs.writeFile('/proj/src/.env', 'x')
    await vfs.mkdir('/proj/empty')
    const all = await fs.walk('proj')
    expect(all).toEqual([
      { name: 'a.txt', path: 'a.txt', type: 'file', size: 2 },
      { name: 'empty', path: 'empty', type: 'directory' },
      { name: 'src', path: 'src', type: 'directory' },
      { name: 'b.ts', path: 'src/b.ts', type: 'file', size: 3 },
      { name: 'deep', path: 'src/deep', type: 'directory' },
      { name: 'c.md', path: 'src/deep/c.md', type: 'file', size: 1 },
    ])
    expect((await fs.walk('/proj', { maxDepth: 1 })).map(e => e.path)).toEqual(['a.txt', 'empty', 'src'])
    expect((await fs.walk('/proj', { includeHidden: true })).map(e => e.path)).toEqual([
      '.git',
      '.git/HEAD',
      'a.txt',
      'empty',
      'src',
      'src/.env',
      'src/b.ts',
      'src/deep',
      'src/deep/c.md',
    ])
    await expect(fs.walk('/nope')).rejects.toBeInstanceOf(DirectoryNotFoundError)
    await expect(fs.walk('/proj/a.txt')).rejects.toBeInstanceOf(NotDirectoryError)
  })

  it("Mastra's list_files uses walk() and prints the same tree as without it", async () => {
    const { vfs, fs } = await fresh()
    await vfs.writeFile('/docs/guide/intro.md', '# hi')
    await vfs.writeFile('/docs/readme.txt', 'r')
    await vfs.writeFile('/docs/.hidden', 'h')
    let walks = 0
    const counted = new Proxy(fs, {
      get: (t, k) => (k === 'walk' ? (...a: [string]) => t.walk(...a).then(r => (walks++, r)) : Reflect.get(t, k, t)),
    })
    const withWalk = await listFiles(counted as VfsFilesystem, { path: 'docs', maxDepth: 5 })
    expect(walks).toBe(1)
    const readdirOnly = new Proxy(fs, { get: (t, k) => (k === 'walk' ? undefined : Reflect.get(t, k, t)) })
    expect(withWalk).toBe(await listFiles(readdirOnly as VfsFilesystem, { path: 'docs', maxDepth: 5 }))
    expect(withWalk).toContain('intro.md')
    expect(withWalk).not.toContain('.hidden')
  })

  it('grep(): Mastra shapes — paths relative to the root, 1-based lines, 0-based UTF-16 columns, context, caps, hidden files', async () => {
    const { vfs, fs } = await fresh()
    await vfs.writeFile('/src/a.ts', 'const x = 1\n// TODO fix\nlet y = "todo"\n')
    await vfs.writeFile('/src/sub/b.ts', 'ünï TODO\nTODO twice TODO\n')
    await vfs.writeFile('/src/.cache/c.ts', 'TODO hidden\n')
    await vfs.writeFile('/other/d.ts', 'TODO elsewhere\n')
    const r = await fs.grep({ pattern: 'TODO', path: 'src', caseSensitive: true, includeHidden: false })
    expect(r).toEqual([
      { path: 'a.ts', matches: [{ line: 2, column: 3, text: '// TODO fix' }] },
      {
        path: 'sub/b.ts',
        matches: [
          { line: 1, column: 4, text: 'ünï TODO' },
          { line: 2, column: 0, text: 'TODO twice TODO' },
        ],
      },
    ])
    const ci = await fs.grep({
      pattern: 'todo',
      path: '/src',
      caseSensitive: false,
      includeHidden: true,
      maxCountPerFile: 1,
      contextLines: 1,
    })
    expect(ci.map(f => [f.path, f.matches.length])).toEqual([
      ['.cache/c.ts', 1],
      ['a.ts', 1],
      ['sub/b.ts', 1],
    ])
    expect(ci[1]!.matches[0]).toEqual({
      line: 2,
      column: 3,
      text: '// TODO fix',
      before: ['const x = 1'],
      after: ['let y = "todo"'],
    })
    const capped = await fs.grep({ pattern: 'TODO', path: '/', caseSensitive: true, includeHidden: true, maxTotalMatches: 2 })
    expect(capped.flatMap(f => f.matches)).toHaveLength(2)
    const one = await fs.grep({ pattern: 'x = (\\d)', path: 'src/a.ts', caseSensitive: true, includeHidden: false })
    expect(one).toEqual([{ path: 'a.ts', matches: [{ line: 1, column: 6, text: 'const x = 1' }] }])
    // Sizes a model chooses are capped.
    await vfs.writeFile('/big/many.txt', 'hit\n'.repeat(12_000))
    const many = await fs.grep({
      pattern: 'hit',
      path: '/big',
      caseSensitive: true,
      includeHidden: false,
      contextLines: 1e9,
      maxTotalMatches: 1e9,
    })
    expect(many[0]!.matches).toHaveLength(MAX_GREP_MATCHES)
    expect(many[0]!.matches[5000]!.before).toHaveLength(MAX_GREP_CONTEXT)
    expect(
      await fs.grep({
        pattern: 'hit',
        path: '/big',
        caseSensitive: true,
        includeHidden: false,
        contextLines: 2.5,
        maxCountPerFile: 1.5,
        maxTotalMatches: 3.7,
      }),
    ).toEqual([{ path: 'many.txt', matches: [{ line: 1, column: 0, text: 'hit', before: [], after: ['hit', 'hit'] }] }])
    // File names with glob characters are searched as themselves, not as patterns.
    for (const name of ['a[1].txt', 'a1.txt', '[slug]/page.tsx', 's/page.tsx', '{x,y}.md', 'x.md', 'q?.md', 'qa.md', 'st*r.md', 'b]c.md'])
      await vfs.writeFile(`/odd/${name}`, `TODO ${name}`)
    const odd = await fs.grep({ pattern: 'TODO', path: '/odd', caseSensitive: true, includeHidden: false })
    expect(odd.map(f => [f.path, f.matches.map(m => m.text)])).toEqual(
      ['[slug]/page.tsx', 'a1.txt', 'a[1].txt', 'b]c.md', 'q?.md', 'qa.md', 's/page.tsx', 'st*r.md', 'x.md', '{x,y}.md']
        .sort()
        .map(p => [p, [`TODO ${p}`]]),
    )
    await expect(fs.grep({ pattern: '(', path: '/', caseSensitive: true, includeHidden: false })).rejects.toBeInstanceOf(
      UnsupportedGrepPatternError,
    )
    await expect(fs.grep({ pattern: 'x', path: '/missing', caseSensitive: true, includeHidden: false })).rejects.toBeInstanceOf(
      DirectoryNotFoundError,
    )
  })

  it("Mastra's grep tool uses the native grep() and prints what its own search prints", async () => {
    const { vfs, fs } = await fresh()
    await vfs.writeFile('/notes/a.md', 'alpha\nbeta\nalpha beta\n')
    await vfs.writeFile('/notes/deep/b.md', 'gamma\nALPHA\n')
    await vfs.writeFile('/notes/.secret.md', 'alpha\n')
    let greps = 0
    const counted = new Proxy(fs, {
      get: (t, k) => (k === 'grep' ? (o: never) => t.grep(o).then(r => (greps++, r)) : Reflect.get(t, k, t)),
    })
    const hostSide = new Proxy(fs, { get: (t, k) => (k === 'grep' ? undefined : Reflect.get(t, k, t)) })
    for (const input of [
      { pattern: 'alpha', path: 'notes' },
      { pattern: 'alpha', path: 'notes', caseSensitive: false, contextLines: 1 },
      { pattern: 'a', path: '/notes', maxCount: 1, includeHidden: true },
    ]) {
      const native = await grepTool(counted as VfsFilesystem, input)
      expect(native).toBe(await grepTool(hostSide as VfsFilesystem, input))
      expect(native).toMatch(/match/)
    }
    expect(greps).toBe(3)
  })
})

/** Runs Mastra's own list_files tool over a filesystem. */
async function listFiles(fs: VfsFilesystem, input: Record<string, unknown>): Promise<string> {
  const workspace = new Workspace({ filesystem: fs })
  const tools = await createWorkspaceTools(workspace)
  const out = await tools.mastra_workspace_list_files.execute(input, toolContext(workspace))
  return typeof out === 'string' ? out : JSON.stringify(out)
}

/** Runs Mastra's own grep tool over a filesystem. */
async function grepTool(fs: VfsFilesystem, input: Record<string, unknown>): Promise<string> {
  const workspace = new Workspace({ filesystem: fs })
  const tools = await createWorkspaceTools(workspace)
  const out = await tools.mastra_workspace_grep.execute(input, toolContext(workspace))
  return typeof out === 'string' ? out : JSON.stringify(out)
}
