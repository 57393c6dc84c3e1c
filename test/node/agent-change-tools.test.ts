import { describe, expect, it } from 'vitest'
import { createChangeTools } from '../../src/agent/index.js'
import { memoryStore, openVfs, withActor } from '../../src/index.js'

describe('change tools: changes_since and diff_files over a workspace with history', () => {
  it('lists what changed since a version, by whom, and diffs text; the patch budget cuts and says so', async () => {
    const vfs = await openVfs({ store: memoryStore(), namespace: 'n', scope: 's' })
    await vfs.writeFile('/work/a.md', 'one\n')
    const since = vfs.version
    await withActor(vfs, { kind: 'api' }).writeFile('/work/a.md', 'one\ntwo\n')
    await withActor(vfs, { kind: 'execution', executionId: 'e0001' }).writeFile('/outputs/b.md', 'x'.repeat(500))
    const tools = createChangeTools(vfs, { since, maxPatchChars: 200 })
    const changed = (await tools.changes_since.execute({})) as { now: number; changes: Array<{ path: string; op: string; by: unknown }> }
    expect(changed.now).toBe(vfs.version)
    expect(changed.changes.filter(c => c.path.endsWith('.md')).map(c => [c.path, c.op, c.by])).toEqual([
      ['/work/a.md', 'put', { kind: 'api' }],
      ['/outputs/b.md', 'put', { kind: 'execution', executionId: 'e0001' }],
    ])
    const onlyWork = (await tools.changes_since.execute({ path: '/work/' })) as { changes: Array<{ path: string }> }
    expect(onlyWork.changes.map(c => c.path)).toEqual(['/work/a.md'])
    const diff = (await tools.diff_files.execute({ path: '/work/a.md' })) as {
      entries: Array<{ path: string; status: string; patch?: string }>
    }
    expect(diff.entries).toHaveLength(1)
    expect(diff.entries[0]).toMatchObject({ path: '/work/a.md', status: 'changed' })
    expect(diff.entries[0].patch).toContain('+two')
    const all = (await tools.diff_files.execute({ from: 0 })) as { entries: Array<{ path: string; patch?: string }> }
    expect(all.entries.find(e => e.path === '/outputs/b.md')!.patch).toContain('(cut: ask for one path to see more)')
    // Hostile input is refused by the schema, not run.
    await expect(tools.diff_files.execute({ from: -1 } as never)).rejects.toThrow(/invalid|from/i)
  })
})
