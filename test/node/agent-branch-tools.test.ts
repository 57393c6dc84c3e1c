import { describe, expect, it } from 'vitest'
import { createBranchTools, evaluatePolicy } from '../../src/agent/index.js'
import { memoryStore, openVfs, restrict, withActor } from '../../src/index.js'

type Out = Record<string, any>

describe('attempt tools: named branches the agent writes side by side and lands one of', () => {
  it('two attempts, each reads its own writes; the winner lands as one commit, the other then conflicts; discard drops it', async () => {
    const store = memoryStore()
    const vfs = await openVfs({ store, namespace: 'n', scope: 's' })
    await vfs.writeFile('/work/plan.md', 'step 1\n')
    const tools = createBranchTools(vfs, { actor: { kind: 'execution', executionId: 'e0001' } })
    const run = (name: string, input: unknown) => tools[name].execute(input as never) as Promise<Out>
    expect(await run('attempt_start', { name: 'short' })).toMatchObject({ attempt: 'short', baseVersion: vfs.version })
    await run('attempt_start', { name: 'long' })
    await expect(run('attempt_start', { name: 'long' })).rejects.toThrow(/exists/)
    await run('attempt_write', { name: 'short', path: '/work/plan.md', content: 'step 1\nstep 2\n' })
    await run('attempt_write', { name: 'short', path: '/work/notes.md', content: 'short notes' })
    await run('attempt_write', { name: 'long', path: '/work/plan.md', content: 'step 1\nstep 2\nstep 3\n' })
    expect((await run('attempt_read', { name: 'long', path: '/work/plan.md' })).content).toBe('step 1\nstep 2\nstep 3\n')
    // The workspace itself is untouched.
    expect(await vfs.readFile('/work/plan.md', 'utf8')).toBe('step 1\n')
    expect(await vfs.exists('/work/notes.md')).toBe(false)
    const diff = await run('attempt_diff', { name: 'short' })
    expect(diff.entries.map((e: Out) => [e.path, e.status])).toEqual([
      ['/work/notes.md', 'added'],
      ['/work/plan.md', 'changed'],
    ])
    expect(diff.entries[1].patch).toContain('+step 2')

    const before = vfs.version
    const landed = await run('attempt_commit', { name: 'short' })
    expect(landed).toMatchObject({ committed: true, files: 2 })
    expect(vfs.version).toBe(before + 1)
    expect(await vfs.readFile('/work/plan.md', 'utf8')).toBe('step 1\nstep 2\n')
    const [commit] = await vfs.history({ after: before })
    expect(commit.changes.every(c => (c.actor as Out).executionId === 'e0001')).toBe(true)
    await expect(run('attempt_diff', { name: 'short' })).rejects.toThrow(/no attempt "short"/)

    const refused = await run('attempt_commit', { name: 'long' })
    expect(refused.committed).toBe(false)
    expect(refused.conflicts.map((c: Out) => c.path)).toEqual(['/work/plan.md'])
    expect(await vfs.readFile('/work/plan.md', 'utf8')).toBe('step 1\nstep 2\n')
    expect(await run('attempt_discard', { name: 'long' })).toEqual({ attempt: 'long', discarded: true })
    expect(await vfs.branches()).toEqual([])
    await expect(run('attempt_start', { name: '../x' })).rejects.toThrow(/invalid/i)
  })

  it("the view's rules apply to an attempt's writes; the policy sees the paths they write", async () => {
    const vfs = await openVfs({ store: memoryStore(), namespace: 'n', scope: 'v' })
    const tools = createBranchTools(vfs, { view: b => restrict(withActor(b, 'agent'), { readOnly: ['/context'] }) })
    await tools.attempt_start.execute({ name: 'a' })
    await expect(tools.attempt_write.execute({ name: 'a', path: '/context/x.md', content: 'no' })).rejects.toThrow(/read-only/)
    const access = tools.attempt_write.access!({ name: 'a', path: '/state/plan.json', content: '' } as never)
    expect(evaluatePolicy([], 'attempt_write', access).decision).toBe('deny')
    const ask = evaluatePolicy(
      [{ decision: 'ask', access: 'write', exceptPaths: ['/work/**'] }],
      'attempt_commit',
      tools.attempt_commit.access!({ name: 'a' } as never),
    )
    expect(ask.decision).toBe('ask')
  })
})
